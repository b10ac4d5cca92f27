import { isScope, type Scope } from '../domain/caller.js';
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

/** Everything the service reads from its environment, checked. */
export interface Config {
  port: number;
  host: string;
  storage: StorageConfig;
  tokens: StaticToken[];
  logLevel: LogLevel;
  /** Requests a second allowed per caller (token bucket, burst of the same size); 0 turns limiting off. */
  rateLimit: number;
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

/** Reads and checks the configuration; throws a ConfigError naming the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const logLevel = (env.LOG_LEVEL || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel}")`);
  }
  const host = env.HOST || '127.0.0.1';
  return {
    port: parseInteger('PORT', env.PORT, 8080, 0, 65535),
    host,
    storage: parseStorage(env),
    tokens: parseTokens(env.PLANT_STORE_TOKENS),
    logLevel,
    rateLimit: parseInteger('PLANT_STORE_RATE_LIMIT', env.PLANT_STORE_RATE_LIMIT, 0, 0, 1_000_000),
  };
}
