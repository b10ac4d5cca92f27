import { DEFAULT_MAX_PLANTS_PER_TENANT } from '../../../domain/plant-quota.js';
import type { OpenedStorage } from '../../limits/limiter-store.js';
import { sweepCounts } from '../../limits/rate-limiter-lmdb.js';
import type { StorageDeps, StorageOptionsOf } from '../storage-options.js';
import { checkStockAddon } from './lmdb-addon.js';
import { refused, watchLockFile } from './lmdb-data-file.js';
import { openEnvironment, openLimitsEnvironment } from './lmdb-environment.js';
import { checkInChild } from './lmdb-integrity.js';
import { buildTagIndex, LmdbPlantStore, openPlantSnapshot } from './lmdb-plant-store.js';
import { LmdbTokenStore } from './lmdb-token-store.js';
import { LmdbWebhookOutbox, LmdbWebhookSubscriptions } from './lmdb-webhooks.js';
import { LmdbWriter, stopsWithoutTheLock } from './lmdb-writer.js';

/**
 * Opens the embedded store in `dataDir` (made when absent; several processes may share it): one
 * LMDB environment, one for the limiters' counts; reads only the format marker, but once after an
 * upgrade from format 1 (buildTagIndex). Rejects with a StorageOpenError naming the path.
 */
export async function openLmdbStorage(
  config: Omit<StorageOptionsOf<'lmdb'>, 'kind'>,
  deps: StorageDeps = {},
): Promise<OpenedStorage> {
  const { dataDir } = config;
  checkStockAddon(dataDir, deps.notice);
  // commit-only: LMDB's noSync, the system flushing when it will (a process crash loses nothing).
  const dbs = openEnvironment(dataDir, { noSync: config.durability === 'commit-only' });
  let counts;
  try {
    counts = openLimitsEnvironment(dataDir);
  } catch (error) {
    await dbs.root.close();
    throw error;
  }
  const { lockFile } = dbs;
  const writer = new LmdbWriter(dbs.root, { dataDir, lockFile, logger: deps.logger });
  // Ended windows' counts are removed each minute (a window lasts a second).
  const sweep = setInterval(() => void sweepCounts(counts).catch(() => {}), 60_000);
  sweep.unref();
  // A lock file LMDB can no longer use would end the process with a signal at its next access.
  const unwatch = watchLockFile(dbs.root, lockFile, (problem) => {
    const line = refused(lockFile, problem, undefined, 'lock file').message;
    if (deps.onLockLost) deps.onLockLost(line);
    else deps.logger?.error({ storage: 'lmdb' }, line);
  });
  const unstop = stopsWithoutTheLock(writer);
  const max = config.maxPlantsPerTenant ?? DEFAULT_MAX_PLANTS_PER_TENANT;
  const storage: OpenedStorage = {
    plants: new LmdbPlantStore(dbs, writer, max, dataDir),
    tokens: new LmdbTokenStore(dbs, writer),
    webhooks: new LmdbWebhookSubscriptions(dbs, writer),
    outbox: new LmdbWebhookOutbox(dbs, writer),
    limiterStore: { kind: 'lmdb', counts },
    snapshot: async () => openPlantSnapshot(dbs),
    // mdb_env_copy: a consistent copy taken in a read transaction, writers going on meanwhile.
    backup: (path, compact) => dbs.root.backup(path, compact),
    check: () => checkInChild(dataDir),
    close: async () => {
      clearInterval(sweep);
      unstop();
      await Promise.all([dbs.root.close(), counts.close()]);
      unwatch();
    },
  };
  // With the lock file watched and job control on: a build may take seconds.
  await buildTagIndex(dbs, writer, deps).catch(async (error: unknown) => {
    await storage.close();
    throw error;
  });
  return storage;
}
