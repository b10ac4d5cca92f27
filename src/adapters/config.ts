import { isScope, type Scope } from '../domain/caller.js';
import { parsePublicKey } from './auth/public-key.js';
import { parseRedisUrl, RedisUrlError } from './storage/redis/redis-url.js';

export type StorageConfig =
  | { kind: 'memory' }
  /** `prefix` goes before every Redis key (default `plant-store:`). */
  | { kind: 'redis'; url: string; prefix?: string }
  | { kind: 'mongodb'; url: string };

export interface StaticToken {
  token: string;
  tenant: string;
  scopes: Scope[];
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Asymmetric signature algorithms only: never `none`, never HMAC (which a public key could forge). */
export const JWT_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
] as const;
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];

/** JWT bearer tokens from an identity provider; absent unless PLANT_STORE_JWT_ISSUER is set. */
export interface JwtConfig {
  issuer: string;
  audience: string[];
  keys: { kind: 'jwks'; url: string } | { kind: 'public-key'; key: string };
  algorithms: JwtAlgorithm[];
  tenantClaim: string;
  clockToleranceSeconds: number;
}

/** Everything the service reads from its environment, checked. */
export interface Config {
  port: number;
  host: string;
  storage: StorageConfig;
  tokens: StaticToken[];
  logLevel: LogLevel;
  /** Requests a second allowed per caller (token bucket, burst of the same size); 0 turns limiting off. */
  rateLimit: number;
  /** Where managed tokens live with the memory storage (shared by `plant-store tokens` and the server). */
  tokenFile?: string;
  /** How long a server trusts a managed token it looked up: the bound on revocation delay. */
  tokenCacheSeconds?: number;
  /** Absent: JWTs are not accepted. */
  jwt?: JwtConfig;
}

/** A configuration mistake; its message is one line that names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

// RFC 6750 b64token.
const TOKEN_CHARACTERS = /^[A-Za-z0-9\-._~+/]+=*$/;
export const MIN_TOKEN_LENGTH = 16;

function parseTokens(text: string | undefined): StaticToken[] {
  if (text === undefined || text.trim() === '') return [];
  let entries: unknown;
  try {
    entries = JSON.parse(text);
  } catch {
    throw new ConfigError(
      'PLANT_STORE_TOKENS must be a JSON array of {"token", "tenant", "scopes"}',
    );
  }
  if (!Array.isArray(entries)) {
    throw new ConfigError(
      'PLANT_STORE_TOKENS must be a JSON array of {"token", "tenant", "scopes"}',
    );
  }
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
    // Unpaired surrogates cannot be stored as UTF-8, so two such tenants could merge in a store.
    if (typeof tenant !== 'string' || tenant === '' || /\p{Cs}/u.test(tenant)) {
      throw new ConfigError(`${where}.tenant must be a non-empty string of well-formed Unicode`);
    }
    if (!Array.isArray(scopes) || !scopes.every(isScope)) {
      throw new ConfigError(`${where}.scopes must be an array of "plants:read" and "plants:write"`);
    }
    return { token, tenant, scopes: [...new Set(scopes)] };
  });
}

function parseInteger(
  name: string,
  text: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (text === undefined || text === '') return fallback;
  if (!/^[0-9]+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max} (got "${text}")`);
  }
  return Number(text);
}

function parseRedisStorage(env: NodeJS.ProcessEnv): StorageConfig {
  const url = env.REDIS_URL || 'redis://127.0.0.1:6379';
  try {
    parseRedisUrl(url);
  } catch (error) {
    if (!(error instanceof RedisUrlError)) throw error;
    throw new ConfigError(`REDIS_URL ${error.message}`);
  }
  const prefix = env.PLANT_STORE_REDIS_PREFIX;
  if (prefix === undefined || prefix === '') return { kind: 'redis', url };
  // A brace would move the cluster hash tag that keeps a tenant's keys in one slot.
  if (/[{}]/.test(prefix)) {
    throw new ConfigError(`PLANT_STORE_REDIS_PREFIX must not contain { or } (got "${prefix}")`);
  }
  return { kind: 'redis', url, prefix };
}

function parseStorage(env: NodeJS.ProcessEnv): StorageConfig {
  const kind = env.PLANT_STORE_STORAGE || 'memory';
  switch (kind) {
    case 'memory':
      return { kind };
    case 'redis':
      return parseRedisStorage(env);
    case 'mongodb':
      return { kind, url: env.MONGODB_URL || 'mongodb://127.0.0.1:27017/plant_store' };
    default:
      throw new ConfigError(`PLANT_STORE_STORAGE must be memory, redis or mongodb (got "${kind}")`);
  }
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

function parseJwksUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`PLANT_STORE_JWT_JWKS_URL must be an absolute URL (got "${text}")`);
  }
  // Keys fetched over plain HTTP could be swapped on the way; loopback is allowed for development.
  if (
    url.protocol !== 'https:' &&
    !(url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))
  ) {
    throw new ConfigError('PLANT_STORE_JWT_JWKS_URL must use https (http only on loopback)');
  }
  return url.href;
}

const list = (text: string): string[] =>
  text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');

function parseJwt(env: NodeJS.ProcessEnv): JwtConfig | undefined {
  const issuer = env.PLANT_STORE_JWT_ISSUER ?? '';
  if (issuer === '') {
    const stray = Object.keys(env)
      .filter((name) => name.startsWith('PLANT_STORE_JWT_') && env[name] !== '')
      .sort()[0];
    if (stray !== undefined) {
      throw new ConfigError(`PLANT_STORE_JWT_ISSUER must be set when ${stray} is`);
    }
    return undefined;
  }
  const audience = list(env.PLANT_STORE_JWT_AUDIENCE ?? '');
  if (audience.length === 0) {
    throw new ConfigError('PLANT_STORE_JWT_AUDIENCE must name the audience tokens are issued for');
  }
  const jwksUrl = env.PLANT_STORE_JWT_JWKS_URL ?? '';
  const publicKey = env.PLANT_STORE_JWT_PUBLIC_KEY ?? '';
  if ((jwksUrl === '') === (publicKey === '')) {
    throw new ConfigError(
      'PLANT_STORE_JWT_JWKS_URL or PLANT_STORE_JWT_PUBLIC_KEY must be set (exactly one of them)',
    );
  }
  if (publicKey !== '') {
    try {
      parsePublicKey(publicKey);
    } catch {
      throw new ConfigError(
        'PLANT_STORE_JWT_PUBLIC_KEY must be a PEM public key (BEGIN PUBLIC KEY) or a public JWK',
      );
    }
  }
  const algorithms = list(env.PLANT_STORE_JWT_ALGORITHMS || 'RS256,ES256');
  const wrong = algorithms.find((alg) => !(JWT_ALGORITHMS as readonly string[]).includes(alg));
  if (wrong !== undefined || algorithms.length === 0) {
    throw new ConfigError(
      `PLANT_STORE_JWT_ALGORITHMS must list some of ${JWT_ALGORITHMS.join(', ')} (got "${wrong ?? ''}")`,
    );
  }
  return {
    issuer,
    audience,
    keys:
      jwksUrl !== ''
        ? { kind: 'jwks', url: parseJwksUrl(jwksUrl) }
        : { kind: 'public-key', key: publicKey },
    algorithms: algorithms as JwtAlgorithm[],
    tenantClaim: env.PLANT_STORE_JWT_TENANT_CLAIM || 'tenant',
    clockToleranceSeconds: parseInteger(
      'PLANT_STORE_JWT_CLOCK_TOLERANCE',
      env.PLANT_STORE_JWT_CLOCK_TOLERANCE,
      30,
      0,
      300,
    ),
  };
}

/** Reads and checks the configuration; throws a ConfigError naming the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const logLevel = (env.LOG_LEVEL || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel}")`);
  }
  const host = env.HOST || '127.0.0.1';
  const jwt = parseJwt(env);
  return {
    port: parseInteger('PORT', env.PORT, 8080, 0, 65535),
    host,
    storage: parseStorage(env),
    tokens: parseTokens(env.PLANT_STORE_TOKENS),
    logLevel,
    rateLimit: parseInteger('PLANT_STORE_RATE_LIMIT', env.PLANT_STORE_RATE_LIMIT, 0, 0, 1_000_000),
    tokenFile: env.PLANT_STORE_TOKEN_FILE || '.plant-store/tokens.json',
    tokenCacheSeconds: parseInteger(
      'PLANT_STORE_TOKEN_CACHE_SECONDS',
      env.PLANT_STORE_TOKEN_CACHE_SECONDS,
      5,
      1,
      60,
    ),
    ...(jwt && { jwt }),
  };
}
