import type { Tracer } from '@opentelemetry/api';
import type { ServiceIdentifier } from 'inversify';
import type { HttpApp, HttpAppOptions } from '../adapters/http/app.js';
import type { ReadinessCheck } from '../adapters/http/operations/readiness.js';
import type { RequestCounts } from '../adapters/http/request-observer.js';
import type { OutageReporters } from '../adapters/storage/outage-reporter.js';
import type { StartingStorage } from '../adapters/storage/starting-storage.js';
import type { LimiterStore, OpenedStorage } from '../adapters/limits/limiter-store.js';
import type { MetricsOptions, ServiceMetrics } from '../adapters/telemetry/service-metrics.js';
import type { WebhookDelivery } from '../adapters/webhooks/webhook-delivery.js';
import type { Logger } from '../ports/logger.js';
import type { PlantEvents } from '../ports/plant-events.js';
import type { PlantStore } from '../ports/plant-store.js';
import type { PlantUseCases } from '../ports/plant-use-cases.js';
import type { TokenAdministration } from '../ports/token-administration.js';
import type { TokenStore } from '../ports/token-store.js';
import type { TokenVerifier } from '../ports/token-verifier.js';
import type { WebhookAdministration } from '../ports/webhook-administration.js';

/**
 * An injection of `serviceIdentifier` that resolves undefined when nothing is bound to it. (Typed as
 * an identifier of `T | undefined`: inversify's own type for optional injections does not accept a
 * union with undefined.)
 */
export const optional = <T>(serviceIdentifier: ServiceIdentifier<T>) =>
  ({ serviceIdentifier, optional: true }) as unknown as ServiceIdentifier<T | undefined>;

const id = <T>(name: string): ServiceIdentifier<T> => Symbol(`plant-store ${name}`);

/**
 * What the service's container provides, by typed identifier: an embedder `rebind`s any of them
 * before resolving the service (docs/embedding.md has a table of each one's interface and what
 * replacing it changes).
 */
export const TYPES = {
  /** Structured logging (pino's shape): the access log and every line of the library. */
  Logger: id<Logger>('Logger'),
  /** The time, for token administration (issued and revoked at). */
  Clock: id<() => Date>('Clock'),
  /** Opens the configured storage technology (memory, Redis or MongoDB). */
  StorageOpener: id<(signal: AbortSignal) => Promise<OpenedStorage>>('StorageOpener'),
  /** The storage as it opens: the plant and token stores answer 503 until it is open. */
  Storage: id<StartingStorage>('Storage'),
  /**
   * Where the tenant rate limit and the failed-authentication budget count, once the storage is
   * open: its own Redis or MongoDB connection (shared by every process on it), in process for the
   * memory storage or a storage that lends none. (A function: inversify resolves a bound promise
   * only through getAsync.)
   */
  LimiterStore: id<() => Promise<LimiterStore>>('LimiterStore'),
  /** Where plants are kept (observed: latency, errors, spans, outages, whatever its adapter). */
  PlantStore: id<PlantStore>('PlantStore'),
  /** Where managed tokens are kept (observed like the plant store). */
  TokenStore: id<TokenStore>('TokenStore'),
  /** Turns a bearer token into a caller: static, managed and JWT tokens by default. */
  TokenVerifier: id<TokenVerifier>('TokenVerifier'),
  /** Hears of each event a create recorded: webhook delivery by default. */
  PlantEvents: id<PlantEvents>('PlantEvents'),
  /** Webhook delivery from the storage's outbox; started by `serve` once the storage is open. */
  WebhookDelivery: id<WebhookDelivery>('WebhookDelivery'),
  /** The plant use cases (driving port). */
  PlantUseCases: id<PlantUseCases>('PlantUseCases'),
  /** Managed-token administration (driving port). */
  TokenAdministration: id<TokenAdministration>('TokenAdministration'),
  /** Webhook subscription administration (driving port), over the storage's subscriptions. */
  WebhookAdministration: id<WebhookAdministration>('WebhookAdministration'),
  /** Where metrics are registered (a host's registry, a prefix); bound only when metrics are on. */
  MetricsOptions: id<MetricsOptions>('MetricsOptions'),
  /** The Prometheus metrics; bound only when metrics are on (PLANT_STORE_METRICS). */
  Metrics: id<ServiceMetrics>('Metrics'),
  /** Server and store spans; bound only when an OpenTelemetry provider is registered. */
  Tracer: id<Tracer>('Tracer'),
  /** Requests in flight, counted by the HTTP app (read at shutdown and by a gauge). */
  RequestCounts: id<RequestCounts>('RequestCounts'),
  /** Where each store reports losing and regaining its server. */
  Outages: id<OutageReporters>('Outages'),
  /** What a host adds to the HTTP app (its own request id); empty by default. */
  HttpHostOptions: id<Pick<HttpAppOptions, 'requestId'>>('HttpHostOptions'),
  /** What GET /readyz asks, each check named in its `failing`: the plant and token stores by default. */
  ReadinessChecks: id<readonly ReadinessCheck[]>('ReadinessChecks'),
  /** The Koa application of the whole contract. */
  HttpApp: id<HttpApp>('HttpApp'),
} as const;
