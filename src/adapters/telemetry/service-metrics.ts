import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type Metric,
} from 'prom-client';
import type { VerificationObserver } from '../auth/composite-token-verifier.js';
import type { StorePart } from '../storage/outage-reporter.js';

/** Where the metrics live and how they are named. */
export interface MetricsOptions {
  /** A registry to register in too, e.g. a host's; the service's /metrics serves its own alone. */
  registry?: Registry;
  /** Whether the service's app serves GET /metrics (default true). */
  route?: boolean;
  /** Put before every metric name. Default `plant_store_`. */
  prefix?: string;
  /** prom-client's process metrics; default: in a registry of its own, not in a given one. */
  defaultMetrics?: boolean;
  /** Requests received and not answered yet, read at each scrape. */
  inFlight?: () => number;
  /** Labels of this process's own series, e.g. `{ worker: '2' }` under `serve --workers`. */
  processLabels?: Record<string, string>;
}

export const DEFAULT_METRICS_PREFIX = 'plant_store_';
// Request and store latencies: from 0.5 ms (a memory store) to the 2 s bound of a store call.
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** The in-flight counts each in-flight gauge sums: one per service sharing its registry. */
const IN_FLIGHT = new WeakMap<object, (() => number)[]>();

/**
 * The service's Prometheus metrics, in a registry of its own too, so that several services in one
 * process never collide. Labels are bounded: never ids or tenants.
 */
export class ServiceMetrics {
  /** The registry given, or the service's own. */
  readonly registry: Registry;
  readonly route: boolean;
  /** The service's series alone (the registry itself when none was given): what /metrics serves. */
  private readonly own = new Registry();
  readonly requestDuration: Histogram<'method' | 'route' | 'status_class'>;
  readonly storeDuration: Histogram<'store' | 'operation' | 'adapter'>;
  readonly storeErrors: Counter<'store' | 'operation' | 'adapter'>;
  readonly outages: Counter<'store'>;
  readonly recoveries: Counter<'store'>;
  readonly tokenVerifications: Counter<'kind' | 'result'>;
  readonly rateLimited: Counter<'limit'>;
  readonly limiterFallbacks: Counter<'limit'>;
  readonly quotaRefused: Counter;
  readonly webhooksDropped: Counter;

  constructor({
    registry,
    prefix = DEFAULT_METRICS_PREFIX,
    defaultMetrics = registry === undefined,
    inFlight,
    processLabels = {},
    route = true,
  }: MetricsOptions = {}) {
    this.route = route;
    if (registry !== undefined) this.own.setContentType(registry.contentType);
    this.registry = registry ?? this.own;
    const registers = registry === undefined ? [this.own] : [this.own, registry];
    // A metric of that name already in the given registry is a second service's when of the same
    // kind and help: it counts into the same series, in this one's own too. Another's is refused.
    const reuse = <M extends Metric>(
      kind: new (...args: never[]) => M,
      name: string,
      help: string,
    ) => {
      const found: unknown = registry?.getSingleMetric(`${prefix}${name}`);
      if (found === undefined) return undefined;
      if (!(found instanceof kind) || (found as { help?: string }).help !== help) {
        throw new Error(
          `metric ${prefix}${name} is already registered by another owner; give the service another prefix (TYPES.MetricsOptions)`,
        );
      }
      this.own.registerMetric(found);
      return found;
    };
    const histogram = <L extends string>(name: string, help: string, labelNames: L[]) =>
      reuse(Histogram<L>, name, help) ??
      new Histogram<L>({ name: `${prefix}${name}`, help, labelNames, buckets: BUCKETS, registers });
    const counter = <L extends string>(name: string, help: string, labelNames: L[] = []) =>
      reuse(Counter<L>, name, help) ??
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
    this.limiterFallbacks = counter(
      'limiter_fallbacks_total',
      'Limit decisions made in this process because the store did not answer in time, by limit',
      ['limit'],
    );
    this.quotaRefused = counter(
      'quota_refused_total',
      'Creates refused because the tenant holds its quota of plants (403 40302)',
    );
    this.webhooksDropped = counter(
      'webhook_deliveries_dropped_total',
      "Webhook deliveries dropped, oldest first, over a tenant's bound (PLANT_STORE_WEBHOOK_TENANT_BACKLOG)",
    );
    if (inFlight !== undefined) {
      const help = 'HTTP requests received and not answered yet';
      const gauge = reuse(Gauge, 'http_requests_in_flight', help);
      if (gauge !== undefined) IN_FLIGHT.get(gauge)?.push(inFlight);
      else {
        const sources = [inFlight];
        const total = () => sources.reduce((sum, count) => sum + count(), 0);
        const created = new Gauge({
          name: `${prefix}http_requests_in_flight`,
          help,
          labelNames: Object.keys(processLabels),
          registers,
          collect() {
            this.set(processLabels, total());
          },
        });
        IN_FLIGHT.set(created, sources);
      }
    }
    // prom-client's process metrics, once a registry (a second service's would collide): in the
    // given one when asked, and in the service's own, which its /metrics serves.
    for (const register of defaultMetrics ? new Set([this.own, this.registry]) : []) {
      if (register.getSingleMetric(`${prefix}process_cpu_user_seconds_total`) === undefined) {
        collectDefaultMetrics({ register, prefix, labels: processLabels });
      }
    }
  }

  /** An OutageListener. */
  readonly storeEvent = (store: StorePart, event: 'outage' | 'recovery'): void => {
    (event === 'outage' ? this.outages : this.recoveries).inc({ store });
  };

  readonly tokenVerified: VerificationObserver = (kind, result) => {
    this.tokenVerifications.inc({ kind, result });
  };

  private gather = (): Promise<string> => this.own.metrics();

  /** Answers GET /metrics with `gather`'s text (the instance's, under `serve --workers`). */
  gatherFrom(gather: () => Promise<string>): void {
    this.gather = gather;
  }

  /** The service's own metrics (never a host's) as text, and their content type. */
  async exposition(): Promise<{ text: string; type: string }> {
    return { text: await this.gather(), type: this.own.contentType };
  }
}
