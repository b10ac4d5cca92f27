import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { StorePart } from '../storage/outage-reporter.js';

/** How a token verification ended, by the kind of token. */
export type TokenKind = 'static' | 'managed' | 'jwt';
export type VerificationResult = 'accepted' | 'refused' | 'error';

/** Where the metrics live and how they are named. */
export interface MetricsOptions {
  /**
   * The registry to register in too, e.g. a host's own (then its /metrics shows the service's
   * series beside its own). The service's GET /metrics serves only the service's series whatever
   * the registry holds besides. Default: a registry of the service's own alone.
   */
  registry?: Registry;
  /**
   * Whether the service's app serves GET /metrics. Default true; false keeps the metrics (in
   * `registry`) and leaves the route out, for a host that serves its registry itself.
   */
  route?: boolean;
  /** Put before every metric name. Default `plant_store_`. */
  prefix?: string;
  /**
   * prom-client's process metrics (CPU, memory, event loop, GC) in the registry. Default: true
   * for a registry of the service's own, false for a given one (the host collects its own once).
   */
  defaultMetrics?: boolean;
  /** Requests received and not answered yet, read at each scrape. */
  inFlight?: () => number;
}

export const DEFAULT_METRICS_PREFIX = 'plant_store_';
// Request and store latencies: from 0.5 ms (a memory store) to the 2 s bound of a store call.
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/**
 * The service's Prometheus metrics (prom-client), in a registry of its own unless given one, so
 * that several services in one process (tests, a host embedding two) never collide. Labels are
 * bounded: methods, route templates, status classes, operations, adapters; never ids or tenants.
 */
export class ServiceMetrics {
  /** The registry given, or the service's own. */
  readonly registry: Registry;
  /** Whether the service's app serves GET /metrics. */
  readonly route: boolean;
  /** The service's series alone (the registry itself when none was given): what /metrics serves. */
  private readonly own: Registry;
  readonly requestDuration: Histogram<'method' | 'route' | 'status_class'>;
  readonly storeDuration: Histogram<'store' | 'operation' | 'adapter'>;
  readonly storeErrors: Counter<'store' | 'operation' | 'adapter'>;
  readonly outages: Counter<'store'>;
  readonly recoveries: Counter<'store'>;
  readonly tokenVerifications: Counter<'kind' | 'result'>;
  readonly rateLimited: Counter<'limit'>;
  readonly quotaRefused: Counter;

  constructor({
    registry,
    prefix = DEFAULT_METRICS_PREFIX,
    defaultMetrics = registry === undefined,
    inFlight,
    route = true,
  }: MetricsOptions = {}) {
    this.route = route;
    // Every metric is registered in a registry of the service's own as well as in a given one,
    // so that the service's /metrics never serves a host's series (prom-client's registers).
    this.own = new Registry();
    if (registry !== undefined) this.own.setContentType(registry.contentType);
    this.registry = registry ?? this.own;
    const registers = registry === undefined ? [this.own] : [this.own, registry];
    const histogram = <L extends string>(name: string, help: string, labelNames: L[]) =>
      new Histogram<L>({ name: `${prefix}${name}`, help, labelNames, buckets: BUCKETS, registers });
    const counter = <L extends string>(name: string, help: string, labelNames: L[] = []) =>
      new Counter<L>({ name: `${prefix}${name}`, help, labelNames, registers });
    this.requestDuration = histogram(
      'http_request_duration_seconds',
      'HTTP requests by method, route template and status class, from arrival to answer',
      ['method', 'route', 'status_class'],
    );
    this.storeDuration = histogram(
      'store_operation_duration_seconds',
      'Calls of the plant and token stores by store, operation and adapter',
      ['store', 'operation', 'adapter'],
    );
    this.storeErrors = counter(
      'store_operation_errors_total',
      'Store calls that failed (an outage, writes refused, an unexpected error)',
      ['store', 'operation', 'adapter'],
    );
    this.outages = counter('storage_outages_total', 'Outages of a store begun (the log says why)', [
      'store',
    ]);
    this.recoveries = counter('storage_recoveries_total', 'Outages of a store ended', ['store']);
    this.tokenVerifications = counter(
      'token_verifications_total',
      'Bearer tokens verified, by kind (static, managed, jwt) and result (accepted, refused, error)',
      ['kind', 'result'],
    );
    this.rateLimited = counter(
      'rate_limited_total',
      'Requests answered 429: limit "tenant" (42901) or "auth_failures" (42902)',
      ['limit'],
    );
    this.quotaRefused = counter(
      'quota_refused_total',
      'Creates refused because the tenant holds its quota of plants (403 40302)',
    );
    if (inFlight !== undefined) {
      new Gauge({
        name: `${prefix}http_requests_in_flight`,
        help: 'HTTP requests received and not answered yet',
        registers,
        collect() {
          this.set(inFlight());
        },
      });
    }
    if (defaultMetrics) collectDefaultMetrics({ register: this.registry, prefix });
  }

  /** Counts outages and recoveries: an OutageListener. */
  readonly storeEvent = (store: StorePart, event: 'outage' | 'recovery'): void => {
    (event === 'outage' ? this.outages : this.recoveries).inc({ store });
  };

  private readonly verified = new Map<string, { inc(): void }>();

  /** Counts one token verification (the child of each kind and result kept). */
  readonly tokenVerified = (kind: TokenKind, result: VerificationResult): void => {
    const key = `${kind} ${result}`;
    let child = this.verified.get(key);
    if (child === undefined) {
      child = this.tokenVerifications.labels(kind, result);
      this.verified.set(key, child);
    }
    child.inc();
  };

  /** The service's own metrics (never a host's) in the Prometheus text format, and its content type. */
  async exposition(): Promise<{ text: string; type: string }> {
    return { text: await this.own.metrics(), type: this.own.contentType };
  }
}
