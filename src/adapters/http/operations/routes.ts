import { Router } from '@koa/router';
import { stringify } from 'lossless-json';
import { InstanceMetricsUnavailable } from '../../telemetry/cluster-metrics.js';
import type { ServiceMetrics } from '../../telemetry/service-metrics.js';
import type { Authorize } from '../bearer-auth.js';
import { openApiDocument } from '../docs/openapi.js';
import { problem } from '../error-catalogue.js';
import { mountPrefix } from '../request-state.js';
import { readiness, type ReadinessCheck } from './readiness.js';

/**
 * The routes for operators: without a token the description, liveness and readiness (asking
 * `checks`); with `metrics` (and its route on), GET /metrics in the Prometheus text format, for a
 * token with the scope `metrics:read` (static, managed or JWT alike): never public by accident.
 */
export function operationRoutes(
  checks: readonly ReadinessCheck[],
  metrics: ServiceMetrics | undefined,
  authorized: Authorize,
): Router {
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
  if (metrics?.route !== true) return router;
  return router.get('/metrics', authorized('readMetrics'), async function getMetrics(ctx) {
    const { text, type } = await metrics.exposition().catch((error: unknown) => {
      throw error instanceof InstanceMetricsUnavailable ? problem('metrics-unavailable') : error;
    });
    ctx.body = text;
    ctx.type = type;
  });
}
