import type { OpenedStorage } from '../adapters/limits/limiter-store.js';
import type { Config, StorageOptionsOf, StorageKind } from '../config/index.js';
import { outageReporters } from '../adapters/storage/outage-reporter.js';
import type { StorageDeps } from '../adapters/storage/storage-options.js';
import { openMemoryStorage } from '../adapters/storage/memory/open-memory-storage.js';

export type { StorageDeps };

/** The configuration with the storage narrowed to one technology. */
type ConfigOf<K extends StorageKind> = Omit<Config, 'storage'> & { storage: StorageOptionsOf<K> };

/** Opens one technology: both stores over one connection; rejects with a StorageOpenError when it cannot. */
type Opener<K extends StorageKind> = (
  config: ConfigOf<K>,
  deps: StorageDeps,
) => Promise<OpenedStorage>;

// Every kind of StorageOptions needs an entry here, or this does not compile. Server adapters are
// loaded only when chosen, so that the memory storage never loads a database driver.
const OPENERS: { [K in StorageKind]: Opener<K> } = {
  memory: (config) => openMemoryStorage(config),
  redis: async (config, deps) => {
    const { openRedisStorage } = await import('../adapters/storage/redis/open-redis-storage.js');
    return openRedisStorage(config.storage, deps);
  },
  mongodb: async (config, deps) => {
    const { openMongoStorage } = await import('../adapters/storage/mongodb/open-mongo-storage.js');
    return openMongoStorage(config.storage, deps, config.webhooks.cacheMs);
  },
  lmdb: async (config, deps) => {
    const { openLmdbStorage } = await import('../adapters/storage/lmdb/open-lmdb-storage.js');
    return openLmdbStorage(config.storage, deps);
  },
};

/** Opens the configured storage: its plant store and token store over one connection. */
export function openStorage(config: Config, deps: StorageDeps = {}): Promise<OpenedStorage> {
  const { kind } = config.storage;
  // Unreachable for typed callers; a plain-JS embedder may still pass anything.
  if (!Object.hasOwn(OPENERS, kind)) {
    return Promise.reject(new Error(`storage ${String(kind)} is not available in this build`));
  }
  const notice = deps.notice ?? ((line: string) => deps.logger?.warn({ storage: kind }, line));
  const bounded = {
    startupTimeoutMs: config.startupTimeoutSeconds * 1000,
    ...deps,
    notice,
    outages: deps.outages ?? outageReporters(deps.logger),
  };
  return (OPENERS[kind] as Opener<StorageKind>)(config as ConfigOf<StorageKind>, bounded);
}
