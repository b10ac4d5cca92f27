import { Router } from '@koa/router';
import { stringify } from 'lossless-json';
import { openApiDocument } from '../docs/openapi.js';
import { mountPrefix } from '../request-state.js';
import { readiness, type ReadinessCheck } from './readiness.js';

/** The endpoints without a token: the description, liveness and readiness (asking `checks`). */
export function openRoutes(checks: readonly ReadinessCheck[]): Router {
  const router = new Router();
  // Mounted under a prefix (koa-mount sets `ctx.mountPath`), `servers` names it, so that generated
  // clients and the reference's try-it reach the operations. Built once per prefix: prefixes come
  // from the host's code, never from a request.
  const documents = new Map<string, string>();
  router.get('/openapi.json', (ctx) => {
    const url = mountPrefix(ctx.mountPath) || '/';
    const json = documents.get(url) ?? stringify({ ...openApiDocument, servers: [{ url }] })!;
    documents.set(url, json);
    ctx.type = 'json';
    ctx.body = json;
  });
  router.get('/healthz', (ctx) => (ctx.body = { status: 'ok' }));
  router.get('/readyz', readiness(checks));
  return router;
}
