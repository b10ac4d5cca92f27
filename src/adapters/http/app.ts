import Koa from 'koa';
import { stringify } from 'lossless-json';
import type { Caller } from '../../domain/caller.js';
import type { Logger } from '../../ports/logger.js';
import type { PlantStore } from '../../ports/plant-store.js';
import type { PlantUseCases } from '../../ports/plant-use-cases.js';
import type { TokenVerifier } from '../../ports/token-verifier.js';
import { docsPage } from './docs-page.js';
import { errorHandler, sendJson } from './error-handler.js';
import { HttpProblem } from './http-problem.js';
import { openApiDocument } from './openapi.js';
import { plantRoutes } from './plant-routes.js';
import { tenantRateLimit } from './rate-limit.js';
import { Router } from '@koa/router';

/** The Koa application; callers need only its `callback()`. */
export type HttpApp = Koa;

export interface HttpAppOptions {
  plants: PlantUseCases;
  tokens: TokenVerifier;
  /** Readiness asks the store. */
  store: Pick<PlantStore, 'ping'>;
  logger: Logger;
  /** Requests a second per tenant; 0 or absent turns limiting off. */
  rateLimit?: number;
}

/** Open endpoints: the description, its page and health. */
function openRoutes(store: Pick<PlantStore, 'ping'>): Router {
  const router = new Router();
  const openApiJson = stringify(openApiDocument) ?? '{}';
  const html = docsPage();
  router.get('/openapi.json', (ctx) => sendJson(ctx, 200, openApiJson));
  router.get('/docs', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = html;
  });
  router.get('/healthz', (ctx) => sendJson(ctx, 200, '{"status":"ok"}'));
  router.get('/readyz', async (ctx) => {
    await store.ping();
    sendJson(ctx, 200, '{"status":"ready"}');
  });
  return router;
}

/** The Koa application of the whole contract; mount it with `app.callback()`. */
export function createHttpApp({
  plants,
  tokens,
  store,
  logger,
  rateLimit = 0,
}: HttpAppOptions): HttpApp {
  const app = new Koa();
  const admit: ((caller: Caller) => void) | undefined =
    rateLimit > 0 ? tenantRateLimit(rateLimit) : undefined;
  const routers = [plantRoutes({ plants, tokens, ...(admit && { admit }) }), openRoutes(store)];

  app.use(errorHandler(logger));
  for (const router of routers) app.use(router.routes());
  // Reached only when no route took the request: 405 if the path exists with other methods, else 404.
  app.use(async (ctx) => {
    const allowed = new Set(
      routers.flatMap((router) =>
        router.match(ctx.path, ctx.method).path.flatMap((layer) => layer.methods),
      ),
    );
    if (allowed.size > 0) {
      const allow = [...allowed].join(', ');
      throw new HttpProblem(
        405,
        40501,
        `${ctx.method} is not allowed on ${ctx.path}; use ${allow}`,
        { Allow: allow },
      );
    }
    throw new HttpProblem(404, 40402, `no route ${ctx.path}`);
  });
  app.on('error', (err: unknown) => logger.debug({ err }, 'connection error'));
  return app;
}
