import { Router } from '@koa/router';
import { InstanceMetricsUnavailable } from '../../telemetry/cluster-metrics.js';
import type { ServiceMetrics } from '../../telemetry/service-metrics.js';
import type { Authorize } from '../bearer-auth.js';
import { problem } from '../error-catalogue.js';

/**
 * GET /metrics in the Prometheus text format, for a bearer token with the scope `metrics:read`
 * (static, managed or JWT alike), so that it is never public by accident.
 */
export function metricsRoutes(metrics: ServiceMetrics, authorized: Authorize): Router {
  return new Router().get('/metrics', authorized('readMetrics'), async function getMetrics(ctx) {
    const { text, type } = await metrics.exposition().catch((error: unknown) => {
      throw error instanceof InstanceMetricsUnavailable ? problem('metrics-unavailable') : error;
    });
    ctx.body = text;
    ctx.type = type;
  });
}
