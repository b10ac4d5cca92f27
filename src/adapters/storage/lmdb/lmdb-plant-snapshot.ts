import type { PlantSnapshot } from '../../../ports/plant-store.js';
import type { LmdbDatabases } from './lmdb-environment.js';
import { justAbove, tenantKey, tenantPrefix } from './lmdb-keys.js';
import { readPage } from './lmdb-plant-store.js';

/**
 * The plants at one instant: every page is read in one LMDB read transaction, held (across the
 * export's awaits and event-loop turns) until released. Writers go on meanwhile, in this process
 * and others; the pages the transaction sees are kept from reuse until then, so the file may grow
 * during a long export and its free pages return afterwards. The same keys and order as
 * LmdbPlantStore's list and tenants.
 */
export function openPlantSnapshot(dbs: LmdbDatabases): PlantSnapshot {
  const transaction = dbs.root.useReadTransaction();
  let released = false;
  // After release the transaction may be the process's current one again: no read of another instant.
  const check = (): void => {
    if (released) throw new Error('the snapshot was released');
  };
  return {
    list: async (tenant, after, limit, tags) => {
      check();
      return readPage(dbs.plants, tenantPrefix(tenant), after, limit, tags, transaction);
    },
    tenants: async (after, limit) => {
      check();
      if (!(limit >= 1)) return [];
      const start = after === undefined ? undefined : justAbove(tenantKey(after));
      const keys = dbs.tenants.getKeys({ ...(start && { start }), limit, transaction });
      return Array.from(keys, (key) => key.toString('utf8'));
    },
    release: () => {
      if (released) return;
      released = true;
      transaction.done();
    },
  };
}
