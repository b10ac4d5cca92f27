import { ContainerModule, type ResolutionContext } from 'inversify';
import type { Config } from '../config/index.js';
import type { RequestCounts } from '../adapters/http/request-observer.js';
import { observedStore } from '../adapters/telemetry/observed-store.js';
import { ServiceMetrics } from '../adapters/telemetry/service-metrics.js';
import { activeTracer } from '../adapters/telemetry/tracing.js';
import { PLANT_STORE_METHODS, type PlantStore } from '../ports/plant-store.js';
import { TOKEN_STORE_METHODS, type TokenStore } from '../ports/token-store.js';
import { TYPES } from './identifiers.js';
import { OWN_PARTS } from './storage-module.js';

/** What watches the stores' calls (metrics when bound, the tracer when registered). */
function observers(
  context: ResolutionContext,
  config: Config,
  store: object,
  part: 'plants' | 'tokens',
) {
  const { storage, outages } = context.get(OWN_PARTS);
  const metrics = context.get(TYPES.Metrics, { optional: true });
  // A store an embedder bound is labelled `custom`: its technology is not the configured one.
  const adapter = store === storage[part] ? config.storage.kind : 'custom';
  return { adapter, metrics, tracer: activeTracer(), outages: outages[part] };
}

/**
 * Metrics (unless PLANT_STORE_METRICS is off, counting `counts` as requests in flight), and the
 * store decorator (observed-store.ts): whatever is bound to PlantStore or TokenStore (the
 * configured adapter or an embedder's) is timed, traced and reported on as it is activated.
 */
export const telemetryModule = (config: Config, counts?: RequestCounts): ContainerModule =>
  new ContainerModule(({ bind, onActivation }) => {
    if (config.metrics) {
      bind(TYPES.MetricsOptions).toConstantValue({});
      bind(TYPES.Metrics).toResolvedValue(
        (options) =>
          new ServiceMetrics({ ...(counts && { inFlight: () => counts.inFlight }), ...options }),
        [TYPES.MetricsOptions],
      );
    }
    onActivation(TYPES.PlantStore, (context, store: PlantStore) => {
      return observedStore(store, PLANT_STORE_METHODS, observers(context, config, store, 'plants'));
    });
    onActivation(TYPES.TokenStore, (context, store: TokenStore) => {
      return observedStore(store, TOKEN_STORE_METHODS, observers(context, config, store, 'tokens'));
    });
  });
