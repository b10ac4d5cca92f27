import type {
  StorageKind,
  StorageOptions,
  StorageOptionsOf,
} from '../adapters/storage/storage-options.js';
import { parseRedisUrl, RedisUrlError } from '../adapters/storage/redis/redis-url.js';
import { ConfigError } from '../adapters/config-error.js';
import { oneOf, parseInteger } from './parse.js';
import { resolve } from 'node:path';

export type { StorageKind, StorageOptions, StorageOptionsOf };

const DURABILITIES = ['flush', 'commit-only'] as const;

// One reader per technology: a kind added to StorageOptions does not compile until it has one.
const READERS: { [K in StorageKind]: (env: NodeJS.ProcessEnv) => StorageOptionsOf<K> } = {
  // Unset stays absent (also below): the stores apply the documented default themselves.
  memory: (env) => ({
    kind: 'memory',
    ...(env.PLANT_STORE_MEMORY_HEAP_LIMIT_PERCENT && {
      heapLimitPercent: parseInteger(env, 'PLANT_STORE_MEMORY_HEAP_LIMIT_PERCENT', 0, 10, 95),
    }),
  }),
  redis: (env) => {
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
  },
  mongodb: (env) => ({
    kind: 'mongodb',
    url: env.MONGODB_URL || 'mongodb://127.0.0.1:27017/plant_store',
  }),
  // PLANT_STORE_DATA_DIR: `.plant-store` under the working directory by default.
  lmdb: (env) => {
    const dataDir = resolve(env.PLANT_STORE_DATA_DIR || '.plant-store');
    const durability = env.PLANT_STORE_DURABILITY;
    if (!durability) return { kind: 'lmdb', dataDir };
    if (!(DURABILITIES as readonly string[]).includes(durability)) {
      throw new ConfigError(
        `PLANT_STORE_DURABILITY must be ${oneOf(DURABILITIES)} (got "${durability}")`,
      );
    }
    return { kind: 'lmdb', dataDir, durability: durability as (typeof DURABILITIES)[number] };
  },
};

/** Reads PLANT_STORE_STORAGE (default lmdb, the durable embedded store) and the variables of the technology it names. */
export function parseStorage(env: NodeJS.ProcessEnv): StorageOptions {
  const kind = env.PLANT_STORE_STORAGE || 'lmdb';
  if (!Object.hasOwn(READERS, kind)) {
    const kinds = oneOf(Object.keys(READERS));
    throw new ConfigError(`PLANT_STORE_STORAGE must be ${kinds} (got "${kind}")`);
  }
  const storage = READERS[kind as StorageKind](env);
  if (!env.PLANT_STORE_MAX_PLANTS_PER_TENANT) return storage;
  const max = parseInteger(env, 'PLANT_STORE_MAX_PLANTS_PER_TENANT', 0, 0, Number.MAX_SAFE_INTEGER);
  return { ...storage, maxPlantsPerTenant: max };
}
