import { Router } from '@koa/router';
import { stringify } from 'lossless-json';
import { openApiDocument } from '../docs/openapi.js';
import { mountPrefix } from '../request-state.js';
import { readiness, type ReadinessCheck } from './readiness.js';

const documents = new Map<string, string>();

/**
 * The served document; mounted under a prefix (koa-mount sets `ctx.mountPath`), its `servers` names
 * that prefix, so that generated clients and the reference's try-it reach the operations. Built once
 * per prefix: prefixes come from the host's code, never from a request.
 */
function openApiJson(mountPath: unknown): string {
  const prefix = mountPrefix(mountPath);
  let json = documents.get(prefix);
  if (json === undefined) {
    const document =
      prefix === '' ? openApiDocument : { ...openApiDocument, servers: [{ url: prefix }] };
    json = stringify(document) ?? '{}';
    documents.set(prefix, json);
  }
  return json;
}

/** The endpoints without a token: the description, liveness and readiness (asking `checks`). */
export function openRoutes(checks: readonly ReadinessCheck[]): Router {
  const router = new Router();
  router.get('/openapi.json', (ctx) => {
    ctx.type = 'json';
    ctx.body = openApiJson(ctx.mountPath);
  });
  router.get('/healthz', (ctx) => (ctx.body = { status: 'ok' }));
  router.get('/readyz', readiness(checks));
  return router;
}
