import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { ResolvedCounter, ResolvedHistogram } from './resolved-metrics.js';
import type { StorePart } from '../storage/outage-reporter.js';

/** How a token verification ended, by the kind of token. */
export type TokenKind = 'static' | 'managed' | 'jwt';
export type VerificationResult = 'accepted' | 'refused' | 'error';

const PREFIX = 'plant_store_';
// Request and store latencies: from 0.5 ms (a memory store) to the 2 s bound of a store call.
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/**
 * The service's Prometheus metrics, in a registry of its own so that several services in one
 * process (tests, a host embedding two) never collide. Labels are bounded: methods, route
 * templates, status classes, operations, adapters; never ids or tenants.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  // The metrics recorded on every request are resolved ones (resolved-metrics.ts): a series is
  // one Map lookup (kept by the store decorators), not a key built and hashed per call.
  readonly requestDuration = new ResolvedHistogram({
    name: `${PREFIX}http_request_duration_seconds`,
    help: 'HTTP requests by method, route template and status class, from arrival to answer',
    labelNames: ['method', 'route', 'status_class'],
    buckets: BUCKETS,
    registry: this.registry,
  });
  readonly storeDuration = new ResolvedHistogram({
    name: `${PREFIX}store_operation_duration_seconds`,
    help: 'Calls of the plant and token stores by store, operation and adapter',
    labelNames: ['store', 'operation', 'adapter'],
    buckets: BUCKETS,
    registry: this.registry,
  });
  readonly storeErrors = new Counter({
    name: `${PREFIX}store_operation_errors_total`,
    help: 'Store calls that failed (an outage, writes refused, an unexpected error)',
    labelNames: ['store', 'operation', 'adapter'] as const,
    registers: [this.registry],
  });
  readonly outages = new Counter({
    name: `${PREFIX}storage_outages_total`,
    help: 'Outages of a store begun (the log says why)',
    labelNames: ['store'] as const,
    registers: [this.registry],
  });
  readonly recoveries = new Counter({
    name: `${PREFIX}storage_recoveries_total`,
    help: 'Outages of a store ended',
    labelNames: ['store'] as const,
    registers: [this.registry],
  });
  readonly tokenVerifications = new ResolvedCounter({
    name: `${PREFIX}token_verifications_total`,
    help: 'Bearer tokens verified, by kind (static, managed, jwt) and result (accepted, refused, error)',
    labelNames: ['kind', 'result'],
    registry: this.registry,
  });
  readonly rateLimited = new Counter({
    name: `${PREFIX}rate_limited_total`,
    help: 'Requests answered 429: limit "tenant" (42901) or "auth_failures" (42902)',
    labelNames: ['limit'] as const,
    registers: [this.registry],
  });
  readonly quotaRefused = new Counter({
    name: `${PREFIX}quota_refused_total`,
    help: 'Creates refused because the tenant holds its quota of plants (403 40302)',
    registers: [this.registry],
  });

  /** `inFlight` is read at each scrape, so that counting requests costs nothing per request. */
  constructor(inFlight: () => number) {
    new Gauge({
      name: `${PREFIX}http_requests_in_flight`,
      help: 'HTTP requests received and not answered yet',
      registers: [this.registry],
      collect() {
        this.set(inFlight());
      },
    });
    collectDefaultMetrics({ register: this.registry, prefix: PREFIX });
  }

  /** Counts outages and recoveries: an OutageListener. */
  readonly storeEvent = (store: StorePart, event: 'outage' | 'recovery'): void => {
    (event === 'outage' ? this.outages : this.recoveries).inc({ store });
  };

  /** The metrics in the Prometheus text format, and its content type. */
  async exposition(): Promise<{ text: string; type: string }> {
    return { text: await this.registry.metrics(), type: this.registry.contentType };
  }
}
