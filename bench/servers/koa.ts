import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import { Router } from '@koa/router';
import { listeningLine } from '../common.js';
import {
  authorize,
  loadTokens,
  parseLimit,
  RefStore,
  validPlant,
  type RefCaller,
} from './reference-store.js';

// Bare Koa + @koa/router + koa-bodyparser: the same work as the service, written plainly.

const tokens = loadTokens();
const store = new RefStore();
const app = new Koa();
const router = new Router<{ caller: RefCaller }>();

const requireScope =
  (scope: string): Koa.Middleware<{ caller: RefCaller }> =>
  async (ctx, next) => {
    const caller = authorize(tokens, ctx.get('Authorization') || undefined, scope);
    if (caller === 401 || caller === 403) {
      ctx.status = caller;
      ctx.body = { error: caller * 100 + 1, message: 'not allowed' };
      return;
    }
    ctx.state.caller = caller;
    await next();
  };

router.get('/plants', requireScope('plants:read'), (ctx) => {
  const limit = parseLimit(ctx.query.limit as string | undefined);
  if (limit === undefined) {
    ctx.status = 400;
    ctx.body = { error: 40003, message: 'bad limit' };
    return;
  }
  ctx.body = store.list(ctx.state.caller.tenant, limit);
});

router.post('/plants', requireScope('plants:write'), bodyParser(), (ctx) => {
  const input = validPlant(ctx.request.body);
  if (input === undefined) {
    ctx.status = 400;
    ctx.body = { error: 40002, message: 'bad plant' };
    return;
  }
  if (!store.insert(ctx.state.caller.tenant, input.id, input.plant)) {
    ctx.status = 409;
    ctx.body = { error: 40901, message: 'duplicate' };
    return;
  }
  ctx.body = input.plant;
});

// BENCH_SPIN_US (`npm run bench -- --spin N`): N µs of busy work a request before routing, to
// measure what a few µs of work add to the CPU a request costs in this setup (bench/README.md).
const spinMs = Number(process.env.BENCH_SPIN_US ?? 0) / 1000;
if (spinMs > 0) {
  app.use((_ctx, next) => {
    const until = performance.now() + spinMs;
    while (performance.now() < until);
    return next();
  });
}
app.use(router.routes()).use(router.allowedMethods());

const host = process.env.HOST ?? '127.0.0.1';
const server = app.listen(Number(process.env.PORT ?? 0), host, () => {
  console.error(listeningLine(host, (server.address() as { port: number }).port));
});
process.on('SIGTERM', () => process.exit(0));
