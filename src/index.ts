// The library surface: the core for embedding without HTTP, its ports, the adapters, and the composed service.
// The core (domain, ports, memory store) is also `plant-store/core`, which loads none of the adapters.
export * from './core.js';
export { StaticTokenVerifier } from './adapters/auth/static-token-verifier.js';
export { CompositeTokenVerifier } from './adapters/auth/composite-token-verifier.js';
export { JwtTokenVerifier } from './adapters/auth/jwt-token-verifier.js';
export { ManagedTokenVerifier } from './adapters/auth/managed-token-verifier.js';
export { TokenAdministrator } from './application/token-administrator.js';
export { WebhookAdministrator } from './application/webhook-administrator.js';
export { MANAGED_TOKEN_PATTERN } from './application/token-format.js';
export {
  ConfigError,
  loadConfig,
  type Config,
  type LoadConfigOptions,
  type JwtConfig,
  type StaticToken,
  type StorageOptions,
  type StorageKind,
} from './config/index.js';
export { createHttpApp, type HttpApp, type HttpAppOptions } from './adapters/http/app.js';
export type { ReadinessCheck } from './adapters/http/operations/readiness.js';
export {
  answerClientError,
  createHttpServer,
  DEFAULT_HTTP_LIMITS,
  listenHttpServer,
  type HttpLimits,
  type HttpServer,
} from './adapters/http/server/http-server.js';
export { openApiDocument } from './adapters/http/docs/openapi.js';
export { createLogger } from './adapters/logger.js';
export { MemoryTokenStore } from './adapters/storage/memory/memory-token-store.js';
export { MemoryWebhookSubscriptions } from './adapters/storage/memory/memory-webhook-subscriptions.js';
export { MemoryWebhookOutbox } from './adapters/storage/memory/memory-webhook-outbox.js';
export { openStorage, type StorageDeps } from './composition/open-storage.js';
// The exact reader importPlants needs (`parseJson`), and the line splitter for a byte stream.
export { parseExactJson } from './adapters/exact-json.js';
export { readLines } from './adapters/transfer/ndjson-lines.js';
export type { LimiterStore, OpenedStorage } from './adapters/limits/limiter-store.js';
export type { OutageReporters } from './adapters/storage/outage-reporter.js';
export { StorageOpenError } from './adapters/storage/storage-open-error.js';
export {
  buildContainer,
  buildService,
  resolveService,
  type Container,
  type Service,
} from './composition/container.js';
export { TYPES } from './composition/identifiers.js';
export { ServiceMetrics, type MetricsOptions } from './adapters/telemetry/service-metrics.js';
