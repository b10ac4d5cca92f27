import {
  MongoBulkWriteError,
  type AnyBulkWriteOperation,
  type Collection,
  type Document,
  type Filter,
  type MongoClient,
} from 'mongodb';
import type { PlantId } from '../../../domain/plant-id.js';
import { plantQuotaReached } from '../../../domain/plant-quota.js';
import { samePlant, type StoredPlant } from '../../../domain/plant.js';
import type { PlantEvent, WebhookEventType } from '../../../domain/webhook.js';
import type { ImportOutcome, PlantStore } from '../../../ports/plant-store.js';
import {
  DUPLICATE_KEY,
  insertNew,
  rethrowUnlessDuplicate,
  text,
  withinDeadline,
} from './mongo-client.js';

/**
 * A plant as stored: `id` a BSON int64 (a bigint here), never a double. `pending` holds its events'
 * webhook deliveries by delivery key, `due` their earliest time (what the outbox polls; absent when
 * none), `lease` the token of the claim that last leased them (mongo-webhook-outbox.ts).
 */
export interface PlantDocument {
  tenant: string;
  id: bigint;
  name: string;
  tag?: string;
  pending?: Record<string, PendingEntry>;
  due?: Date;
  lease?: string;
}

/** One delivery waiting in a plant's document. */
export type PendingEntry = {
  sub: string;
  event: string;
  type: WebhookEventType;
  body: string;
  at: Date;
  due: Date;
  attempts: number;
};

/** The one document readiness rewrites. */
export type ProbeDocument = { _id: string; at: Date };

export const COLLECTION = 'plants';
export const PROBE_COLLECTION = 'readiness';
export const INDEX_NAME = 'tenant_1_id_1';
/** What a tag filter reads, hinted by its keys (an index of another name may have them). */
export const TAG_INDEX = 'tenant_1_tag_1_id_1';
export const TAG_KEYS = { tenant: 1, tag: 1, id: 1 } as const;

// Never _id or tenant: a listed document is exactly a StoredPlant.
const PROJECTION = { _id: 0, id: 1, name: 1, tag: 1 } as const;

/**
 * Plants in one collection, one document a plant, unique on (tenant, id). Every query is built from
 * a string tenant and a bigint id, so no request value can become an operator.
 */
export class MongoPlantStore implements PlantStore {
  /** On FerretDB, the last batch imported: the next waits for it (see importBatch). */
  private lastImport: Promise<unknown> = Promise.resolve();

  /** Without `counts` no quota; `eventEntries`: an event's entries (none without subscribers). */
  constructor(
    private readonly client: MongoClient,
    private readonly plants: Collection<PlantDocument>,
    private readonly counts: PlantCounts | undefined,
    private readonly probe: Collection<ProbeDocument>,
    private readonly eventEntries: (
      tenant: string,
      event: PlantEvent,
    ) => Promise<Record<string, PendingEntry> | undefined>,
    private readonly ferretdb = false,
  ) {}

  /** One insertOne: the event's deliveries live in the plant's own document, so both or neither. */
  async insert(tenant: string, plant: StoredPlant, event?: PlantEvent): Promise<boolean> {
    const document = toDocument(tenant, plant);
    const pending = event && (await this.eventEntries(tenant, event));
    if (pending !== undefined) {
      document.pending = pending;
      document.due = new Date(Math.min(...Object.values(pending).map(({ due }) => due.getTime())));
    }
    const counts = this.counts;
    if (counts === undefined) return insertNew(this.plants, document);
    if (!(await withinDeadline(() => counts.reserve(tenant)))) {
      // A duplicate is a duplicate, full tenant or not, as on every store.
      const taken = await withinDeadline(() =>
        this.plants.findOne(key(tenant, plant.id), { projection: { _id: 1 } }),
      );
      if (taken !== null) return false;
      throw plantQuotaReached(counts.max);
    }
    const stored = await insertNew(this.plants, document);
    // A duplicate gives its place back; after an outage the insert may have happened, so the
    // place is kept (see PlantCounts).
    if (!stored) await withinDeadline(() => counts.release(tenant)).catch(() => {});
    return stored;
  }

  async get(tenant: string, id: PlantId): Promise<StoredPlant | undefined> {
    const document = await withinDeadline(() =>
      this.plants.findOne(key(tenant, id), { projection: PROJECTION }),
    );
    return document === null ? undefined : toStoredPlant(document);
  }

  /**
   * One find on the (tenant, id) index; with tags on the (tenant, tag, id) one, read as one range a
   * tag merged by id (SORT_MERGE). The hint keeps MongoDB from reusing, for a rare tag, a plan cached
   * for a common one that walks the whole tenant.
   */
  async list(
    tenant: string,
    after: PlantId | undefined,
    limit: number,
    tags?: readonly string[],
  ): Promise<StoredPlant[]> {
    // The driver reads limit 0 as "no limit".
    if (!(limit >= 1)) return [];
    const filter: Filter<PlantDocument> = { tenant: text(tenant, 'tenants') };
    if (tags !== undefined) filter.tag = { $in: tags.map((tag) => text(tag, 'tags')) };
    if (after !== undefined) filter.id = { $gt: exact(after) };
    const documents = await withinDeadline(() =>
      this.plants
        .find(filter, {
          projection: PROJECTION,
          sort: { id: 1 },
          limit,
          batchSize: limit,
          ...(tags !== undefined && { hint: TAG_KEYS }),
        })
        .toArray(),
    );
    return documents.map(toStoredPlant);
  }

  async delete(tenant: string, id: PlantId): Promise<boolean> {
    const { deletedCount } = await withinDeadline(() => this.plants.deleteOne(key(tenant, id)));
    if (deletedCount !== 1) return false;
    // The plant is gone whatever happens to its count; a count left high is only conservative.
    await this.counts?.release(tenant).catch(() => {});
    return true;
  }

  /**
   * One findOne a tenant, each a seek on the (tenant, id) index past the last: no memory beyond the
   * page. MongoDB compares strings by UTF-8 bytes, which is code-point order.
   */
  async tenants(after: string | undefined, limit: number): Promise<string[]> {
    const found: string[] = [];
    for (let last = after && text(after, 'tenants'); found.length < limit;) {
      const filter = last === undefined ? {} : { tenant: { $gt: last } };
      const next = await withinDeadline(() =>
        this.plants.findOne(filter, {
          projection: { _id: 0, tenant: 1 },
          sort: { tenant: 1, id: 1 },
        }),
      );
      if (next === null) break;
      found.push((last = next.tenant));
    }
    return found;
  }

  /**
   * One find of the batch's ids, places reserved for the new plants at once, then one unordered
   * bulkWrite of the inserts (no event) and overwrites. On FerretDB, one batch at a time (below).
   */
  importBatch(
    tenant: string,
    plants: readonly StoredPlant[],
    overwrite: boolean,
  ): Promise<ImportOutcome[]> {
    if (!this.ferretdb) return this.importNow(tenant, plants, overwrite);
    // FerretDB reads the whole collection for each find and takes one write at a time: batches
    // sent together would only share its CPU and SQLite's lock, each past the deadline.
    const turn = this.lastImport.then(() => this.importNow(tenant, plants, overwrite));
    this.lastImport = turn.catch(() => {});
    return turn;
  }

  private async importNow(tenant: string, plants: readonly StoredPlant[], overwrite: boolean) {
    if (plants.length === 0) return [];
    const held = await this.held(tenant, plants);
    const outcomes = plants.map((plant): ImportOutcome => {
      const present = held.get(plant.id)?.plant;
      if (present === undefined) return 'stored';
      return samePlant(present, plant) ? 'present' : overwrite ? 'replaced' : 'conflict';
    });
    const fresh = [...outcomes.keys()].filter((index) => outcomes[index] === 'stored');
    const counts = this.counts;
    const granted =
      counts === undefined || fresh.length === 0
        ? fresh.length
        : await withinDeadline(() => counts.reserveUpTo(tenant, fresh.length));
    for (const index of fresh.slice(granted)) outcomes[index] = 'quota';
    const writes: { index: number; operation: AnyBulkWriteOperation<PlantDocument> }[] = [];
    for (const [index, outcome] of outcomes.entries()) {
      const plant = plants[index]!;
      if (outcome === 'stored') {
        writes.push({ index, operation: { insertOne: { document: toDocument(tenant, plant) } } });
      } else if (outcome === 'replaced') {
        // An update, not a replace: the plant's pending deliveries stay with it.
        const update =
          plant.tag === undefined
            ? { $set: { name: plant.name }, $unset: { tag: '' as const } }
            : { $set: { name: plant.name, tag: plant.tag } };
        // By _id alone, the one filter FerretDB v1 looks up instead of reading the collection;
        // a document's tenant and id never change, so it is still this plant, or gone.
        const filter = { _id: held.get(plant.id)!._id };
        writes.push({ index, operation: { updateOne: { filter, update } } });
      }
    }
    const raced = await this.bulkWrite(writes.map((write) => write.operation));
    if (raced.length === 0) return outcomes;
    // Inserts another writer beat to the id: their places go back and they are looked at again.
    const lost = raced.map((at) => writes[at]!.index);
    await counts?.release(tenant, lost.length).catch(() => {});
    const again = lost.map((index) => plants[index]!);
    const now = await this.held(tenant, again);
    for (const index of lost) {
      const present = now.get(plants[index]!.id)?.plant;
      outcomes[index] = present && samePlant(present, plants[index]!) ? 'present' : 'conflict';
    }
    return outcomes;
  }

  /** The tenant's plants with the ids of `plants`, and their documents' _id, by id. */
  private async held(tenant: string, plants: readonly StoredPlant[]) {
    const ids = plants.map((plant) => exact(plant.id));
    // FerretDB reads every document of the collection for a find, and compares each with each
    // id of an $in: a range costs it a comparison or two (the plants between come along).
    const range = this.ferretdb && {
      $gte: ids.reduce((a, b) => (a < b ? a : b)),
      $lte: ids.reduce((a, b) => (a > b ? a : b)),
    };
    const documents = await withinDeadline(() =>
      this.plants
        .find(
          { tenant: text(tenant, 'tenants'), id: range || { $in: ids } },
          { projection: { ...PROJECTION, _id: 1 } },
        )
        .toArray(),
    );
    return new Map(
      documents.map((document) => [
        BigInt(document.id),
        { plant: toStoredPlant(document), _id: document._id },
      ]),
    );
  }

  /** Runs the writes unordered, each bulkWrite within the deadline; resolves the duplicates' indexes. */
  private async bulkWrite(operations: AnyBulkWriteOperation<PlantDocument>[]): Promise<number[]> {
    const raced: number[] = [];
    for (const { start, chunk } of bulkWriteChunks(operations, this.ferretdb)) {
      await withinDeadline(() => this.plants.bulkWrite(chunk, { ordered: false })).catch(
        (error: unknown) => {
          if (!(error instanceof MongoBulkWriteError)) throw error;
          const errors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
          if (errors.length === 0 || errors.some((e) => e.code !== DUPLICATE_KEY)) throw error;
          raced.push(...errors.map((e) => e.index + start));
        },
      );
    }
    return raced;
  }

  /** A ping, then one small write: a server out of disk or read-only still answers pings. */
  async ping(): Promise<void> {
    await withinDeadline(() => this.client.db('admin').command({ ping: 1 }));
    const at = new Date();
    await withinDeadline(() =>
      this.probe.updateOne({ _id: 'readiness' }, { $set: { at } }, { upsert: true }),
    );
  }
}

// Checked at run time too: an object here could carry a query operator.
const key = (tenant: string, id: PlantId) => ({ tenant: text(tenant, 'tenants'), id: exact(id) });

function exact(id: PlantId): bigint {
  if (typeof id !== 'bigint') throw new TypeError('id must be a bigint');
  return id;
}

const toDocument = (tenant: string, { id, name, tag }: StoredPlant): PlantDocument =>
  tag === undefined ? { ...key(tenant, id), name } : { ...key(tenant, id), name, tag };

function toStoredPlant(document: Partial<PlantDocument>): StoredPlant {
  // An int64 arrives as a bigint; an id written as int32 by another tool arrives as a number.
  const id = BigInt(document.id as bigint | number);
  const name = String(document.name);
  return typeof document.tag === 'string' ? { id, name, tag: document.tag } : { id, name };
}

/**
 * Updates one command carries at most on FerretDB. Its v1 (SQLite) keeps a pooled connection for
 * each update of a command until the command ends, out of a pool of 100 for the whole server: the
 * 100th update of one command waits forever, and so does everything else on that server.
 */
export const FERRETDB_UPDATES = 4;

/**
 * The bulkWrites for `operations` (none when empty), each with the index of its first: one on
 * MongoDB; on FerretDB, none with more than FERRETDB_UPDATES updates (inserts hold nothing).
 */
export function bulkWriteChunks<T extends Document>(
  operations: AnyBulkWriteOperation<T>[],
  ferretdb: boolean,
): { start: number; chunk: AnyBulkWriteOperation<T>[] }[] {
  const chunks: { start: number; chunk: AnyBulkWriteOperation<T>[] }[] = [];
  let updates = 0;
  for (const [start, operation] of operations.entries()) {
    const update = 'updateOne' in operation;
    if (start === 0 || (ferretdb && update && updates === FERRETDB_UPDATES)) {
      chunks.push({ start, chunk: [] });
      updates = 0;
    }
    if (update) updates++;
    chunks.at(-1)!.chunk.push(operation);
  }
  return chunks;
}

/** One tenant's plant count: `_id` is the tenant. */
export type CountDocument = { _id: string; count: number };

export const COUNT_COLLECTION = 'plant_counts';

/**
 * Per-tenant plant counts that enforce a quota without transactions (FerretDB has none): a create
 * reserves a place with one conditional `$inc` (atomic on one document), then inserts, and gives
 * the place back when nothing was stored. A count may run high (a stop between the two steps, an
 * outage hiding whether an insert happened): the quota is reached a little early, never late.
 * Plants stored before counting began are not counted.
 */
export class PlantCounts {
  constructor(
    private readonly counts: Collection<CountDocument>,
    readonly max: number,
  ) {}

  /** Takes a place for one plant; resolves false when the tenant holds `max` already. */
  async reserve(tenant: string): Promise<boolean> {
    // Upserting a tenant at its quota inserts a second document with its _id: a duplicate key.
    // Two first creates of a tenant race to insert its document too, so the loser tries again.
    for (let attempt = 0; attempt < 2; attempt++) {
      const upsert = this.counts.updateOne(
        { _id: tenant, count: { $lt: this.max } },
        { $inc: { count: 1 } },
        { upsert: true },
      );
      if (await upsert.then(() => true, rethrowUnlessDuplicate)) return true;
    }
    return false;
  }

  /**
   * Takes places for up to `wanted` plants (an import's batch): reads the count, then takes what is
   * left with one conditional `$inc`, again when another writer moved it. Resolves how many.
   */
  async reserveUpTo(tenant: string, wanted: number): Promise<number> {
    for (let attempt = 0; attempt < 10; attempt++) {
      const held = (await this.counts.findOne({ _id: tenant }))?.count ?? 0;
      const granted = Math.min(wanted, this.max - held);
      if (granted <= 0) return 0;
      const taken = await this.counts
        .updateOne(
          { _id: tenant, count: { $lte: this.max - granted } },
          { $inc: { count: granted } },
          { upsert: true },
        )
        .then((result) => result.matchedCount + result.upsertedCount === 1, rethrowUnlessDuplicate);
      if (taken) return granted;
    }
    return 0;
  }

  /** Gives places back: a reserved create stored nothing, or a plant was deleted. */
  async release(tenant: string, places = 1): Promise<void> {
    await this.counts.updateOne(
      { _id: tenant, count: { $gte: places } },
      { $inc: { count: -places } },
    );
  }
}
