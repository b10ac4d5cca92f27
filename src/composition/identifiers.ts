import type { ServiceIdentifier } from 'inversify';
import type { HttpAppOptions } from '../adapters/http/app.js';
import type { ReadinessCheck } from '../adapters/http/operations/readiness.js';
import type { LimiterStore, OpenedStorage } from '../adapters/limits/limiter-store.js';
import type { OutageReporters } from '../adapters/storage/outage-reporter.js';
import type { MetricsOptions, ServiceMetrics } from '../adapters/telemetry/service-metrics.js';
import type { Logger } from '../ports/logger.js';
import type { PlantEvents } from '../ports/plant-events.js';
import type { PlantStore } from '../ports/plant-store.js';
import type { TokenStore } from '../ports/token-store.js';
import type { TokenVerifier } from '../ports/token-verifier.js';

const id = <T>(name: string): ServiceIdentifier<T> => Symbol(`plant-store ${name}`);

/** The seams an embedder `rebind`s before resolving the service (docs/embedding.md's table). */
export const TYPES = {
  /** Structured logging (pino's shape): the access log and every line of the library. */
  Logger: id<Logger>('Logger'),
  /** The time, for token administration (issued and revoked at). */
  Clock: id<() => Date>('Clock'),
  /** Where plants are kept (observed: latency, errors, spans, outages, whatever its adapter). */
  PlantStore: id<PlantStore>('PlantStore'),
  /** Where managed tokens are kept (observed like the plant store). */
  TokenStore: id<TokenStore>('TokenStore'),
  /** Turns a bearer token into a caller: static, managed and JWT tokens by default. */
  TokenVerifier: id<TokenVerifier>('TokenVerifier'),
  /** Hears of each event a create recorded: webhook delivery by default. */
  PlantEvents: id<PlantEvents>('PlantEvents'),
  /** What GET /readyz asks, each check named in its `failing`: the plant and token stores by default. */
  ReadinessChecks: id<readonly ReadinessCheck[]>('ReadinessChecks'),
  /** Opens the storage (its stores, the connection it lends the limits) as the service resolves. */
  StorageOpener:
    id<(signal: AbortSignal, outages: OutageReporters) => Promise<OpenedStorage>>('StorageOpener'),
  /** Where the rate limit and failure budget count; unbound: the opened storage's connection. */
  LimiterStore: id<LimiterStore>('LimiterStore'),
  /** Where metrics are registered (a host's registry, a prefix); bound only when metrics are on. */
  MetricsOptions: id<MetricsOptions>('MetricsOptions'),
  /** The Prometheus metrics; bound only when metrics are on (PLANT_STORE_METRICS). */
  Metrics: id<ServiceMetrics>('Metrics'),
  /** What a host adds to the HTTP app (its own request id); empty by default. */
  HttpHostOptions: id<Pick<HttpAppOptions, 'requestId'>>('HttpHostOptions'),
} as const;
