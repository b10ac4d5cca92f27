import { ContainerModule, type ResolutionContext } from 'inversify';
import type { Config } from '../config/index.js';
import { outageReporters } from '../adapters/storage/outage-reporter.js';
import { observedStore } from '../adapters/telemetry/observed-store.js';
import { ServiceMetrics } from '../adapters/telemetry/service-metrics.js';
import { activeTracer } from '../adapters/telemetry/tracing.js';
import { PLANT_STORE_METHODS, type PlantStore } from '../ports/plant-store.js';
import { TOKEN_STORE_METHODS, type TokenStore } from '../ports/token-store.js';
import { optional, TYPES } from './identifiers.js';

/** What watches the stores' calls, from the container (metrics and tracer only when bound). */
function observers(context: ResolutionContext, config: Config, store: object, own: object) {
  const metrics = context.get(TYPES.Metrics, { optional: true });
  const tracer = context.get(TYPES.Tracer, { optional: true });
  // A store an embedder bound is labelled `custom`: its technology is not the configured one.
  const adapter = store === own ? config.storage.kind : 'custom';
  return { adapter, metrics, tracer, outages: context.get(TYPES.Outages) };
}

/**
 * Metrics (unless PLANT_STORE_METRICS is off), the tracer (when an OpenTelemetry provider is
 * registered), requests in flight, outage reporting, and the store decorator
 * (observed-store.ts): whatever is bound to PlantStore or TokenStore (the configured adapter or an
 * embedder's) is timed, traced and reported on as it is activated.
 */
export const telemetryModule = (config: Config): ContainerModule =>
  new ContainerModule(({ bind, onActivation }) => {
    bind(TYPES.RequestCounts).toConstantValue({ inFlight: 0 });
    if (config.metrics) {
      bind(TYPES.MetricsOptions).toConstantValue({});
      bind(TYPES.Metrics).toResolvedValue(
        (options, counts) => new ServiceMetrics({ inFlight: () => counts.inFlight, ...options }),
        [TYPES.MetricsOptions, TYPES.RequestCounts],
      );
    }
    const tracer = activeTracer();
    if (tracer !== undefined) bind(TYPES.Tracer).toConstantValue(tracer);
    bind(TYPES.Outages).toResolvedValue(
      (logger, metrics) => outageReporters(logger, metrics?.storeEvent),
      [TYPES.Logger, optional(TYPES.Metrics)],
    );
    onActivation(TYPES.PlantStore, (context, store: PlantStore) => {
      const watch = observers(context, config, store, context.get(TYPES.Storage).plants);
      return observedStore(store, PLANT_STORE_METHODS, { ...watch, outages: watch.outages.plants });
    });
    onActivation(TYPES.TokenStore, (context, store: TokenStore) => {
      const watch = observers(context, config, store, context.get(TYPES.Storage).tokens);
      return observedStore(store, TOKEN_STORE_METHODS, { ...watch, outages: watch.outages.tokens });
    });
  });
