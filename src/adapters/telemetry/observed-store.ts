import { SpanKind, type Tracer } from '@opentelemetry/api';
import { isPlantError } from '../../domain/errors.js';
import type { OutageReporter } from '../storage/outage-reporter.js';
import type { ServiceMetrics } from './service-metrics.js';
import { failSpan } from './tracing.js';

/** What watches a store's calls; only `outages` is always there. */
export interface StoreObservers {
  /** The `adapter` label and `db.system`: lmdb, memory, redis, mongodb; custom for a host's. */
  readonly adapter: string;
  readonly outages: OutageReporter;
  readonly metrics?: ServiceMetrics | undefined;
  readonly tracer?: Tracer | undefined;
}

type Method = (...args: unknown[]) => Promise<unknown>;

/**
 * The store with each of `operations` timed (latency and errors by operation and adapter), traced
 * (a client span per call with the database semantic conventions, when a tracer is given) and
 * reported to the store's OutageReporter: the one place where every adapter's calls are watched.
 */
export function observedStore<T extends object>(
  store: T,
  operations: readonly (keyof T & string)[],
  { adapter, outages, metrics, tracer }: StoreObservers,
): T {
  const observed = (operation: keyof T & string) => {
    const duration = metrics?.storeDuration.labels(outages.store, operation, adapter);
    const errors = metrics?.storeErrors.labels(outages.store, operation, adapter);
    const name = `${operation} ${outages.store}`;
    const attributes = { 'db.system': adapter, 'db.operation.name': operation };
    // A leaf: the active context's span (the use case) is its parent, and it need not become
    // active itself, which spares a context switch per call.
    return (...args: unknown[]) => {
      const span = tracer?.startSpan(name, { kind: SpanKind.CLIENT, attributes });
      const started = performance.now();
      return (store[operation] as Method).apply(store, args).then(
        (value) => {
          duration?.observe((performance.now() - started) / 1000);
          outages.recovered();
          span?.end();
          return value;
        },
        (error: unknown) => {
          duration?.observe((performance.now() - started) / 1000);
          errors?.inc();
          if (isPlantError(error) && error.code === 'storage-unavailable') {
            // The adapter's cause for the outage line: it names hosts, never secrets.
            outages.failed(error.cause instanceof Error ? error.cause.message : error.message);
          }
          throw failSpan(span, error);
        },
      );
    };
  };
  return Object.fromEntries(operations.map((operation) => [operation, observed(operation)])) as T;
}
