import { isScope } from '../domain/caller.js';
import { checkTenant } from '../domain/tenant.js';
import type { StaticToken } from '../adapters/auth/static-token-verifier.js';
import { ConfigError } from '../adapters/config-error.js';
import type { HttpLimits } from '../adapters/http/server/http-server.js';
import type { TrustProxy } from '../adapters/http/trusted-proxy.js';
import { LOG_LEVELS, type LogLevel } from '../adapters/logger.js';
import type { WebhookConfig } from '../adapters/webhooks/webhook-config.js';
import { parseCorsOrigins } from './cors.js';
import { parseHttpLimits } from './http-limits.js';
import { parseJwt, type JwtConfig } from './jwt.js';
import { parseInteger, parseSwitch } from './parse.js';
import { parseStorage, type StorageOptions } from './storage.js';
import { parseTrustProxy } from './trust-proxy.js';
import { loadWebhookConfig } from './webhooks.js';

export { ConfigError };
export type { JwtConfig, LogLevel, StaticToken, StorageOptions };
export type { StorageOptionsOf, StorageKind } from './storage.js';

/** How long a server trusts a managed token it looked up, unless PLANT_STORE_TOKEN_CACHE_SECONDS says otherwise. */
export const DEFAULT_TOKEN_CACHE_SECONDS = 5;

// RFC 6750 b64token.
const TOKEN_CHARACTERS = /^[A-Za-z0-9\-._~+/]+=*$/;
const MIN_TOKEN_LENGTH = 16;
const SHAPE = 'PLANT_STORE_TOKENS must be a JSON array of {"token", "tenant", "scopes"}';

/** Reads PLANT_STORE_TOKENS: a JSON array of distinct tokens, each with its tenant and scopes. */
function parseStaticTokens(text: string | undefined): StaticToken[] {
  if (text === undefined || text.trim() === '') return [];
  let entries: unknown;
  try {
    entries = JSON.parse(text);
  } catch {
    throw new ConfigError(SHAPE);
  }
  if (!Array.isArray(entries)) throw new ConfigError(SHAPE);
  const seen = new Set<string>();
  return entries.map((entry: unknown, index): StaticToken => {
    const where = `PLANT_STORE_TOKENS[${index}]`;
    const { token, tenant, scopes } = (entry ?? {}) as Record<string, unknown>;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw new ConfigError(`${where} must be an object with token, tenant and scopes`);
    }
    if (
      typeof token !== 'string' ||
      token.length < MIN_TOKEN_LENGTH ||
      !TOKEN_CHARACTERS.test(token)
    ) {
      throw new ConfigError(
        `${where}.token must be at least ${MIN_TOKEN_LENGTH} characters of A-Z a-z 0-9 - . _ ~ + / (then optional =)`,
      );
    }
    if (seen.has(token)) throw new ConfigError(`${where}.token repeats an earlier entry's token`);
    seen.add(token);
    const badTenant = checkTenant(tenant);
    if (badTenant !== undefined) throw new ConfigError(`${where}.tenant ${badTenant}`);
    if (!Array.isArray(scopes) || !scopes.every(isScope)) {
      throw new ConfigError(
        `${where}.scopes must be an array of "plants:read", "plants:write" and "metrics:read"`,
      );
    }
    return { token, tenant: tenant as string, scopes: [...new Set(scopes)] };
  });
}

/** Everything the service reads from its environment, checked, defaults applied. */
export interface Config {
  port: number;
  host: string;
  storage: StorageOptions;
  /** The configured bearer tokens (PLANT_STORE_TOKENS). */
  staticTokens: StaticToken[];
  logLevel: LogLevel;
  /** Requests a second per tenant (counted in the storage; per process on memory); 0: no limit. */
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

export interface LoadConfigOptions {
  /** For a host that embeds the service: LOG_LEVEL, PORT and HOST are the host's, not read. */
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
