import { LOG_LEVELS, type LogLevel } from '../adapters/logger.js';
import type { HttpLimits } from '../adapters/http/server/http-server.js';
import type { WebhookConfig } from '../adapters/webhooks/webhook-config.js';
import { loadWebhookConfig } from './webhooks.js';
import { ConfigError } from '../adapters/config-error.js';
import { parseHttpLimits } from './http-limits.js';
import { parseJwt, type JwtConfig } from './jwt.js';
import { parseInteger, parseSwitch } from './parse.js';
import { parseStorage, type StorageOptions } from './storage.js';
import { parseTrustProxy } from './trust-proxy.js';
import { parseCorsOrigins } from './cors.js';
import type { TrustProxy } from '../adapters/http/trusted-proxy.js';
import { DEFAULT_TOKEN_CACHE_SECONDS, parseStaticTokens, type StaticToken } from './tokens.js';

export { ConfigError } from '../adapters/config-error.js';
export type { JwtConfig } from './jwt.js';
export type { StorageOptions, StorageOptionsOf, StorageKind } from './storage.js';
export { DEFAULT_TOKEN_CACHE_SECONDS, type StaticToken } from './tokens.js';

export type { LogLevel };

/** Everything the service reads from its environment, checked, defaults applied. */
export interface Config {
  port: number;
  host: string;
  storage: StorageOptions;
  /** The configured bearer tokens (PLANT_STORE_TOKENS). */
  staticTokens: StaticToken[];
  logLevel: LogLevel;
  /** Requests a second per tenant (one-second windows, shared through the storage: the data directory, Redis or MongoDB; per process on memory); 0 turns limiting off. */
  rateLimit: number;
  /** How long a server trusts a managed token it looked up: the bound on revocation delay. */
  tokenCacheSeconds: number;
  /** Whether GET /docs serves the interactive API reference. */
  docs: boolean;
  /** One `info` line per request (PLANT_STORE_ACCESS_LOG). */
  accessLog: boolean;
  /** Whether GET /metrics is served and metrics are kept (PLANT_STORE_METRICS). */
  metrics: boolean;
  /** How long shutdown lets requests in flight finish before closing their connections. */
  shutdownGraceSeconds: number;
  /** Absent: JWTs are not accepted. */
  jwt?: JwtConfig;
  /** Timeouts and connection bounds of the HTTP server; absent ones take their defaults. */
  http: Partial<HttpLimits>;
  /** Failed authentications a second per client address (shared like the rate limit); 0: no budget. */
  authFailureLimit: number;
  /** Whose X-Forwarded-For names the client (PLANT_STORE_TRUST_PROXY); absent: nobody's. */
  trustProxy?: TrustProxy;
  /** The origins whose pages may call the service (PLANT_STORE_CORS_ORIGINS), `*` any; absent: CORS off. */
  corsOrigins?: '*' | string[];
  /** How long start-up waits for the storage to open (retrying) before it gives up. */
  startupTimeoutSeconds: number;
  /** Webhook delivery (docs/webhooks.md). */
  webhooks: WebhookConfig;
}

/** How `loadConfig` reads its environment. */
export interface LoadConfigOptions {
  /**
   * For a host that embeds the service: LOG_LEVEL, PORT and HOST, which are the host's own (the
   * library uses them only for its default logger and for `serve`), are not read; they take their
   * defaults (info, 8080, 127.0.0.1). Every other variable is the library's and is read as usual.
   */
  embedded?: boolean;
}

/** Reads and checks the configuration; throws a ConfigError naming the first bad variable. */
export function loadConfig(
  given: NodeJS.ProcessEnv = process.env,
  { embedded = false }: LoadConfigOptions = {},
): Config {
  const env = embedded
    ? { ...given, LOG_LEVEL: undefined, PORT: undefined, HOST: undefined }
    : given;
  const logLevel = (env.LOG_LEVEL || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel}")`);
  }
  const jwt = parseJwt(env);
  const storage = parseStorage(env);
  const trustProxy = parseTrustProxy(env.PLANT_STORE_TRUST_PROXY);
  const corsOrigins = parseCorsOrigins(env.PLANT_STORE_CORS_ORIGINS);
  const webhooks = loadWebhookConfig(env);
  if (!webhooks.deliver && storage.kind === 'memory') {
    throw new ConfigError(
      'PLANT_STORE_WEBHOOK_DELIVER=false needs a shared storage (lmdb, redis or mongodb): the memory outbox is delivered only by the process that writes it',
    );
  }
  return {
    port: parseInteger(env, 'PORT', 8080, 0, 65535),
    host: env.HOST || '127.0.0.1',
    storage,
    staticTokens: parseStaticTokens(env.PLANT_STORE_TOKENS),
    logLevel,
    rateLimit: parseInteger(env, 'PLANT_STORE_RATE_LIMIT', 0, 0, 1_000_000),
    webhooks,
    tokenCacheSeconds: parseInteger(
      env,
      'PLANT_STORE_TOKEN_CACHE_SECONDS',
      DEFAULT_TOKEN_CACHE_SECONDS,
      1,
      60,
    ),
    docs: parseSwitch(env, 'PLANT_STORE_DOCS', true),
    accessLog: parseSwitch(env, 'PLANT_STORE_ACCESS_LOG', true),
    metrics: parseSwitch(env, 'PLANT_STORE_METRICS', true),
    shutdownGraceSeconds: parseInteger(env, 'PLANT_STORE_SHUTDOWN_GRACE_SECONDS', 10, 0, 3600),
    ...(jwt && { jwt }),
    ...(trustProxy && { trustProxy }),
    ...(corsOrigins && { corsOrigins }),
    http: parseHttpLimits(env),
    authFailureLimit: parseInteger(env, 'PLANT_STORE_AUTH_FAILURE_LIMIT', 10, 0, 1_000_000),
    startupTimeoutSeconds: parseInteger(env, 'PLANT_STORE_STARTUP_TIMEOUT', 30, 1, 3600),
  };
}
