import type { PlantId } from '../../../domain/plant-id.js';
import { plantQuotaReached } from '../../../domain/plant-quota.js';
import { samePlant, type StoredPlant } from '../../../domain/plant.js';
import type { PlantEvent } from '../../../domain/webhook.js';
import type { ImportOutcome, PlantStore } from '../../../ports/plant-store.js';
import type { LmdbDatabases } from './lmdb-environment.js';
import { idOf, justAbove, plantKey, tenantKey, tenantKeys } from './lmdb-keys.js';
import { recordEvent } from './lmdb-webhook-outbox.js';
import { lowOnSpace, refusesWrites, type LmdbWriter } from './lmdb-writer.js';

/** A plant's value: its name, and its tag when it has one. */
export type PlantValue = [string] | [string, string];

const toValue = (plant: StoredPlant): PlantValue =>
  plant.tag === undefined ? [plant.name] : [plant.name, plant.tag];

export function toPlant(id: PlantId, value: PlantValue): StoredPlant {
  const [name, tag] = value;
  return tag === undefined ? { id, name: String(name) } : { id, name: String(name), tag };
}

/**
 * Plants in the LMDB environment, one entry per plant keyed by tenant and ordered id (see
 * lmdb-keys.ts), so that a page is one seek and `limit` steps whatever the tenant holds; beside
 * them, each tenant's count, kept in the same transactions: the quota without counting, and the
 * tenants' list without reading plants. Every write runs in the environment's write transaction,
 * shared with every process on the directory, so that what it checks holds when it commits.
 */
export class LmdbPlantStore implements PlantStore {
  constructor(
    private readonly dbs: LmdbDatabases,
    private readonly writer: LmdbWriter,
    /** Plants one tenant may hold; 0 for no quota. */
    private readonly maxPlants: number,
    /** Where the environment lives, for readiness to look at its free space. */
    private readonly dataDir?: string,
  ) {}

  /** Checks the id and the count, stores the plant, its count and its event's deliveries: one transaction. */
  async insert(tenant: string, plant: StoredPlant, event?: PlantEvent): Promise<boolean> {
    const { prefix, counted } = tenantKeys(tenant);
    const key = plantKey(prefix, plant.id);
    const value = toValue(plant);
    const { plants, tenants } = this.dbs;
    const stored = await this.writer.write(() => {
      if (plants.doesExist(key)) return 0;
      const count = tenants.get(counted) ?? 0;
      if (this.maxPlants > 0 && count >= this.maxPlants) return -1;
      void plants.put(key, value);
      void tenants.put(counted, count + 1);
      if (event !== undefined) recordEvent(this.dbs, prefix, event);
      return 1;
    });
    if (stored === -1) throw plantQuotaReached(this.maxPlants);
    return stored === 1;
  }

  /**
   * A fresh read transaction, then one seek to just above `after` in the tenant's keys and at most
   * `limit` entries. lmdb-js keeps one read transaction until a `setTimeout(0)` after its first
   * read, so a request arriving within that millisecond would read the snapshot of an earlier one
   * and miss a write another process acknowledged meanwhile; `resetReadTxn` reads the latest.
   */
  // TODO(tags): interim, through list; the tag index to come.
  async get(tenant: string, id: PlantId): Promise<StoredPlant | undefined> {
    const [found] = await this.list(tenant, id - 1n, 1);
    return found?.id === id ? found : undefined;
  }

  async list(tenant: string, after: PlantId | undefined, limit: number): Promise<StoredPlant[]> {
    if (!(limit >= 1)) return [];
    const { prefix, end } = tenantKeys(tenant);
    this.dbs.root.resetReadTxn();
    const page: StoredPlant[] = [];
    const range = this.dbs.plants.getRange(
      after === undefined
        ? { start: prefix, end, limit }
        : { start: plantKey(prefix, after), exclusiveStart: true, end, limit },
    );
    for (const { key, value } of range) page.push(toPlant(idOf(key), value as PlantValue));
    return page;
  }

  async delete(tenant: string, id: PlantId): Promise<boolean> {
    const { prefix, counted } = tenantKeys(tenant);
    const key = plantKey(prefix, id);
    const { plants, tenants } = this.dbs;
    return this.writer.write(() => {
      if (!plants.doesExist(key)) return false;
      void plants.remove(key);
      const count = (tenants.get(counted) ?? 1) - 1;
      // A tenant holding no plant leaves the tenants' list.
      if (count > 0) void tenants.put(counted, count);
      else void tenants.remove(counted);
      return true;
    });
  }

  /** The counts' keys are the tenants, in UTF-8 byte order, which is code-point order. */
  async tenants(after: string | undefined, limit: number): Promise<string[]> {
    if (!(limit >= 1)) return [];
    const start = after === undefined ? undefined : justAbove(tenantKey(after));
    // The latest tenants, as for list.
    this.dbs.root.resetReadTxn();
    const found: string[] = [];
    for (const key of this.dbs.tenants.getKeys({ ...(start && { start }), limit })) {
      found.push(key.toString('utf8'));
    }
    return found;
  }

  /** The whole batch in one transaction, its outcomes decided on what the transaction reads. */
  importBatch(
    tenant: string,
    batch: readonly StoredPlant[],
    overwrite: boolean,
  ): Promise<ImportOutcome[]> {
    if (batch.length === 0) return Promise.resolve([]);
    const { prefix, counted } = tenantKeys(tenant);
    const entries = batch.map((plant) => ({ plant, key: plantKey(prefix, plant.id) }));
    const { plants, tenants } = this.dbs;
    return this.writer.write(() => {
      const before = tenants.get(counted) ?? 0;
      let count = before;
      const outcomes = entries.map(({ plant, key }): ImportOutcome => {
        const held = plants.get(key) as PlantValue | undefined;
        if (held !== undefined) {
          if (samePlant(toPlant(plant.id, held), plant)) return 'present';
          if (!overwrite) return 'conflict';
          void plants.put(key, toValue(plant));
          return 'replaced';
        }
        if (this.maxPlants > 0 && count >= this.maxPlants) return 'quota';
        void plants.put(key, toValue(plant));
        count++;
        return 'stored';
      });
      if (count !== before) void tenants.put(counted, count);
      return outcomes;
    });
  }

  /**
   * One small durable write, refused as plants are on a read-only or failing disk; and the disk's
   * free space, since a small write may still fit in pages LMDB freed when a plant's may not.
   */
  async ping(): Promise<void> {
    await this.writer.write(() => void this.dbs.meta.put('readiness', Date.now()));
    if (this.dataDir !== undefined && lowOnSpace(this.dataDir)) throw refusesWrites();
  }
}
