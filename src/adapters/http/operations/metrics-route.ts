import { Router } from '@koa/router';
import { OPERATION_SCOPES } from '../../../domain/caller.js';
import type { TokenVerifier } from '../../../ports/token-verifier.js';
import { InstanceMetricsUnavailable } from '../../telemetry/cluster-metrics.js';
import type { ServiceMetrics } from '../../telemetry/service-metrics.js';
import { authorize, type AuthLimits } from '../bearer-auth.js';
import { problem } from '../error-catalogue.js';

/**
 * GET /metrics in the Prometheus text format, for a bearer token with the scope `metrics:read`
 * (static, managed or JWT alike), so that it is never public by accident.
 */
export function metricsRoutes(
  metrics: ServiceMetrics,
  tokenVerifier: TokenVerifier,
  limits?: AuthLimits,
): Router {
  const scope = authorize(tokenVerifier, OPERATION_SCOPES.readMetrics, limits);
  return new Router().get('/metrics', scope, async function getMetrics(ctx) {
    const { text, type } = await metrics.exposition().catch((error: unknown) => {
      throw error instanceof InstanceMetricsUnavailable ? problem('metrics-unavailable') : error;
    });
    ctx.body = text;
    ctx.type = type;
  });
}
