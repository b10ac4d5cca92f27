import type { Database, Transaction } from 'lmdb';
import type { PlantId } from '../../../domain/plant-id.js';
import { plantQuotaReached } from '../../../domain/plant-quota.js';
import { firstById, samePlant, type StoredPlant } from '../../../domain/plant.js';
import type { PlantEvent } from '../../../domain/webhook.js';
import type { Logger } from '../../../ports/logger.js';
import type { ImportOutcome, PlantSnapshot, PlantStore } from '../../../ports/plant-store.js';
import { lowOnSpace } from './lmdb-data-file.js';
import {
  idOf,
  justAbove,
  plantKey,
  prefixEnd,
  TAG_INDEX,
  TAG_INDEX_FROM,
  tagPrefix,
  tenantKey,
  tenantPrefix,
  type LmdbDatabases,
} from './lmdb-environment.js';
import { recordEvent } from './lmdb-webhooks.js';
import { refusesWrites, type LmdbWriter } from './lmdb-writer.js';

/** A plant's value: its name, and its tag when it has one. */
export type PlantValue = [string] | [string, string];

function toPlant(id: PlantId, [name, tag]: PlantValue): StoredPlant {
  return tag === undefined ? { id, name: String(name) } : { id, name: String(name), tag };
}

/** A plant's key in the tag index (its value: the name). */
const tagEntry = (prefix: Buffer, id: PlantId, tag: string): Buffer =>
  plantKey(tagPrefix(prefix, tag), id);

/** A plant to write, with its keys: made before the write, since a write must not throw midway. */
type Keyed = ReturnType<typeof keyed>;
const keyed = (prefix: Buffer, plant: StoredPlant) => ({
  plant,
  key: plantKey(prefix, plant.id),
  entry: plant.tag === undefined ? undefined : tagEntry(prefix, plant.id, plant.tag),
});

// At most `limit` of a tenant's plants (`prefix`) above `after`, by id: one seek and `limit` steps
// among its plants, or each of `tags`' index entries, merged; in `within`'s transaction, if any.
function readPage(
  plants: Database<unknown, Buffer>,
  prefix: Buffer,
  after: PlantId | undefined,
  limit: number,
  tags?: readonly string[],
  within: { transaction?: Transaction } = {},
): StoredPlant[] {
  if (!(limit >= 1)) return [];
  const read = (keys: Buffer, toValue: (value: unknown) => PlantValue): StoredPlant[] => {
    const start = after === undefined ? keys : justAbove(plantKey(keys, after));
    const range = plants.getRange({ start, end: prefixEnd(keys), limit, ...within });
    return Array.from(range, ({ key, value }) => toPlant(idOf(key), toValue(value)));
  };
  if (tags === undefined) return read(prefix, (value) => value as PlantValue);
  const pages = tags.map((tag) => read(tagPrefix(prefix, tag), (name) => [name as string, tag]));
  return firstById(pages, limit);
}

/** The counts' keys are the tenants, in UTF-8 byte order, which is code-point order. */
function readTenants(
  dbs: LmdbDatabases,
  after: string | undefined,
  limit: number,
  within: { transaction?: Transaction } = {},
): string[] {
  if (!(limit >= 1)) return [];
  const start = after === undefined ? undefined : justAbove(tenantKey(after));
  const keys = dbs.tenants.getKeys({ ...(start && { start }), limit, ...within });
  return Array.from(keys, (key) => key.toString('utf8'));
}

/**
 * Plants keyed by tenant and ordered id, then the tag index keyed by tenant, tag and ordered id (a
 * page, filtered or not, is one seek and `limit` steps), and each tenant's count (the quota and
 * the tenants' list without counting). A plant, its index entry and its count change in one write
 * transaction, which every process on the directory shares. lmdb-js keeps a read transaction until
 * a `setTimeout(0)` after its first read, which would miss a write another process acknowledged
 * meanwhile: each read first takes the latest (`resetReadTxn`).
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
    const prefix = tenantPrefix(tenant);
    const counted = prefix.subarray(2);
    const write = keyed(prefix, plant);
    const { plants, tenants } = this.dbs;
    const stored = await this.writer.write(() => {
      if (plants.doesExist(write.key)) return 0;
      const count = tenants.get(counted) ?? 0;
      if (this.maxPlants > 0 && count >= this.maxPlants) return -1;
      this.put(prefix, write);
      void tenants.put(counted, count + 1);
      if (event !== undefined) recordEvent(this.dbs, prefix, event);
      return 1;
    });
    if (stored === -1) throw plantQuotaReached(this.maxPlants);
    return stored === 1;
  }

  async get(tenant: string, id: PlantId): Promise<StoredPlant | undefined> {
    const key = plantKey(tenantPrefix(tenant), id);
    this.dbs.root.resetReadTxn();
    const value = this.dbs.plants.get(key) as PlantValue | undefined;
    return value === undefined ? undefined : toPlant(id, value);
  }

  async list(
    tenant: string,
    after: PlantId | undefined,
    limit: number,
    tags?: readonly string[],
  ): Promise<StoredPlant[]> {
    this.dbs.root.resetReadTxn();
    return readPage(this.dbs.plants, tenantPrefix(tenant), after, limit, tags);
  }

  async delete(tenant: string, id: PlantId): Promise<boolean> {
    const prefix = tenantPrefix(tenant);
    const counted = prefix.subarray(2);
    const key = plantKey(prefix, id);
    const { plants, tenants } = this.dbs;
    return this.writer.write(() => {
      const held = plants.get(key) as PlantValue | undefined;
      if (held === undefined) return false;
      void plants.remove(key);
      if (held[1] !== undefined) void plants.remove(tagEntry(prefix, id, held[1]));
      const count = (tenants.get(counted) ?? 1) - 1;
      // A tenant holding no plant leaves the tenants' list.
      if (count > 0) void tenants.put(counted, count);
      else void tenants.remove(counted);
      return true;
    });
  }

  async tenants(after: string | undefined, limit: number): Promise<string[]> {
    this.dbs.root.resetReadTxn();
    return readTenants(this.dbs, after, limit);
  }

  /** The whole batch in one transaction, its outcomes decided on what the transaction reads. */
  importBatch(
    tenant: string,
    batch: readonly StoredPlant[],
    overwrite: boolean,
  ): Promise<ImportOutcome[]> {
    if (batch.length === 0) return Promise.resolve([]);
    const prefix = tenantPrefix(tenant);
    const counted = prefix.subarray(2);
    const writes = batch.map((plant) => keyed(prefix, plant));
    const { plants, tenants } = this.dbs;
    return this.writer.write(() => {
      const before = tenants.get(counted) ?? 0;
      let count = before;
      const outcomes = writes.map((write): ImportOutcome => {
        const { plant, key } = write;
        const held = plants.get(key) as PlantValue | undefined;
        if (held !== undefined) {
          if (samePlant(toPlant(plant.id, held), plant)) return 'present';
          if (!overwrite) return 'conflict';
          this.put(prefix, write, held[1]);
          return 'replaced';
        }
        if (this.maxPlants > 0 && count >= this.maxPlants) return 'quota';
        this.put(prefix, write);
        count++;
        return 'stored';
      });
      if (count !== before) void tenants.put(counted, count);
      return outcomes;
    });
  }

  // One small durable write, and the free space: a small write may fit in pages a plant's may not.
  async ping(): Promise<void> {
    await this.writer.write(() => void this.dbs.meta.put('readiness', Date.now()));
    if (this.dataDir !== undefined && lowOnSpace(this.dataDir)) throw refusesWrites();
  }

  /** Within a write: the plant and its index entry, moved from the index of the tag it `held`. */
  private put(prefix: Buffer, { plant, key, entry }: Keyed, held?: string): void {
    const { plants } = this.dbs;
    if (held !== undefined && held !== plant.tag) {
      void plants.remove(tagEntry(prefix, plant.id, held));
    }
    void plants.put(key, plant.tag === undefined ? [plant.name] : [plant.name, plant.tag]);
    if (entry !== undefined) void plants.put(entry, plant.name);
  }
}

// The plants at one instant: one read transaction until released, writers going on meanwhile;
// the pages it sees are kept from reuse until then (the file may grow).
export function openPlantSnapshot(dbs: LmdbDatabases): PlantSnapshot {
  const transaction = dbs.root.useReadTransaction();
  let released = false;
  const read = async <T>(page: () => T): Promise<T> => {
    // After release the transaction may be the process's current one again: no other instant.
    if (released) throw new Error('the snapshot was released');
    return page();
  };
  return {
    list: (tenant, after, limit, tags) =>
      read(() => readPage(dbs.plants, tenantPrefix(tenant), after, limit, tags, { transaction })),
    tenants: (after, limit) => read(() => readTenants(dbs, after, limit, { transaction })),
    release: () => {
      if (released) return;
      released = true;
      transaction.done();
    },
  };
}

const describe = (key: string): string => {
  if (key === '') return 'from the start';
  const bytes = Buffer.from(key, 'hex');
  const tenant = bytes.toString('utf8', 2, bytes.length - 8);
  return `after tenant ${JSON.stringify(tenant)} plant ${idOf(bytes)}`;
};

// Builds format 1's plants' tag index while `meta` holds TAG_INDEX_FROM, in write transactions of
// `batch` plants (10,000: some ms of the write lock), each moving TAG_INDEX_FROM past them:
// resumable, shared by processes opening together, idempotent. Rejects with an abort's reason.
export async function buildTagIndex(
  dbs: LmdbDatabases,
  writer: Pick<LmdbWriter, 'write'>,
  options: { logger?: Logger | undefined; signal?: AbortSignal | undefined; batch?: number } = {},
): Promise<void> {
  const { logger, signal, batch = 10_000 } = options;
  const { plants, meta } = dbs;
  const from = meta.get(TAG_INDEX_FROM) as string | undefined;
  if (from === undefined) return;
  const fields = { storage: 'lmdb', tagIndex: true };
  logger?.info(fields, `building the tag index of the plants stored before it, ${describe(from)}`);
  const began = Date.now();
  let read = 0;
  let added = 0;
  for (let done = false; !done;) {
    if (signal?.aborted) {
      const at = meta.get(TAG_INDEX_FROM) as string | undefined;
      logger?.warn(fields, `tag index build stopped ${describe(at ?? '')}; the next start goes on`);
      throw signal.reason;
    }
    done = await writer.write(() => {
      const at = meta.get(TAG_INDEX_FROM) as string | undefined;
      if (at === undefined) return true; // another process finished it
      const after = at === '' ? {} : { start: Buffer.from(at, 'hex'), exclusiveStart: true };
      let last: Buffer | undefined;
      let count = 0;
      for (const { key, value } of plants.getRange({ ...after, end: TAG_INDEX, limit: batch })) {
        last = key;
        count++;
        const [name, tag] = value as PlantValue;
        if (tag === undefined) continue;
        const entry = tagEntry(key.subarray(0, key.length - 8), idOf(key), tag);
        if (plants.doesExist(entry)) continue;
        void plants.put(entry, name);
        added++;
      }
      read += count;
      if (count < batch) void meta.remove(TAG_INDEX_FROM);
      else void meta.put(TAG_INDEX_FROM, last!.toString('hex'));
      return count < batch;
    });
  }
  logger?.info(
    { ...fields, read, added },
    `the tag index is built: ${read} plants read, ${added} entries added in ${Date.now() - began} ms`,
  );
}
