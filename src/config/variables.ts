// Every variable loadConfig reads, once: `plant-store config` lists them, and tests check the list
// against what loadConfig reads, its defaults against loadConfig's, and docs/operations.md.
import { DEFAULT_HTTP_LIMITS } from '../adapters/http/server/http-server.js';
import { HTTP_VARIABLES } from './http-limits.js';

/** A variable of the service's configuration. */
export interface Variable {
  readonly name: string;
  /** The value it takes unset, as an operator would write it; absent: none (the feature is off). */
  readonly default?: string;
  /** Read only with this storage, or with JWTs configured (PLANT_STORE_JWT_ISSUER). */
  readonly with?: 'lmdb' | 'memory' | 'redis' | 'mongodb' | 'jwt';
  /** Shown as set or unset only (a URL: with its password hidden). */
  readonly secret?: true;
}

export const VARIABLES: readonly Variable[] = [
  { name: 'PORT', default: '8080' },
  { name: 'HOST', default: '127.0.0.1' },
  { name: 'LOG_LEVEL', default: 'info' },
  { name: 'PLANT_STORE_STORAGE', default: 'lmdb' },
  { name: 'PLANT_STORE_DATA_DIR', default: '.plant-store', with: 'lmdb' },
  { name: 'PLANT_STORE_DURABILITY', default: 'flush', with: 'lmdb' },
  { name: 'PLANT_STORE_MEMORY_HEAP_LIMIT_PERCENT', default: '85', with: 'memory' },
  { name: 'REDIS_URL', default: 'redis://127.0.0.1:6379', with: 'redis', secret: true },
  { name: 'PLANT_STORE_REDIS_PREFIX', default: 'plant-store:', with: 'redis' },
  {
    name: 'MONGODB_URL',
    default: 'mongodb://127.0.0.1:27017/plant_store',
    with: 'mongodb',
    secret: true,
  },
  { name: 'PLANT_STORE_MAX_PLANTS_PER_TENANT', default: '1000000' },
  { name: 'PLANT_STORE_TOKENS', secret: true },
  { name: 'PLANT_STORE_TOKEN_CACHE_SECONDS', default: '5' },
  { name: 'PLANT_STORE_RATE_LIMIT', default: '0' },
  { name: 'PLANT_STORE_AUTH_FAILURE_LIMIT', default: '10' },
  { name: 'PLANT_STORE_TRUST_PROXY', default: 'off' },
  { name: 'PLANT_STORE_CORS_ORIGINS' },
  { name: 'PLANT_STORE_DOCS', default: 'on' },
  { name: 'PLANT_STORE_ACCESS_LOG', default: 'on' },
  { name: 'PLANT_STORE_METRICS', default: 'on' },
  { name: 'PLANT_STORE_SHUTDOWN_GRACE_SECONDS', default: '10' },
  { name: 'PLANT_STORE_STARTUP_TIMEOUT', default: '30' },
  { name: 'PLANT_STORE_JWT_ISSUER' },
  { name: 'PLANT_STORE_JWT_AUDIENCE', with: 'jwt' },
  { name: 'PLANT_STORE_JWT_JWKS_URL', with: 'jwt' },
  { name: 'PLANT_STORE_JWT_PUBLIC_KEY', with: 'jwt', secret: true },
  { name: 'PLANT_STORE_JWT_ALGORITHMS', default: 'RS256,ES256', with: 'jwt' },
  { name: 'PLANT_STORE_JWT_TENANT_CLAIM', default: 'tenant', with: 'jwt' },
  { name: 'PLANT_STORE_JWT_CLOCK_TOLERANCE', default: '30', with: 'jwt' },
  // MAX_CONNECTIONS is lower when the open-file limit less 128 is lower.
  ...HTTP_VARIABLES.map(([field, name]) => ({ name, default: String(DEFAULT_HTTP_LIMITS[field]) })),
  ...Object.entries({
    RETRY_SCHEDULE: '5s,5m,30m,2h,5h,10h,10h',
    DISABLE_AFTER: '5d',
    TIMEOUT: '10s',
    ALLOW_PRIVATE: 'false',
    POLL: '1s',
    LEASE: '1m',
    CONCURRENCY: '64',
    TENANT_CONCURRENCY: '8',
    TENANT_BACKLOG: '10000',
    CACHE: '1s',
    DELIVER: 'true',
  }).map(([name, fallback]) => ({ name: `PLANT_STORE_WEBHOOK_${name}`, default: fallback })),
];

/** A URL's password replaced by `***`: what may be shown of a secret URL. */
const withoutPassword = (url: string): string =>
  url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:]*:)[^/@]*@/i, '$1***@');

/** How `plant-store config` shows a value: secrets as `set` (a URL without its password). */
export function shown(variable: Variable, value: string): string {
  if (variable.secret !== true) return value;
  return variable.name.endsWith('_URL') ? withoutPassword(value) : 'set';
}
