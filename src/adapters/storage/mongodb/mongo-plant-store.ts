import { MongoServerError, type Collection, type MongoClient } from 'mongodb';
import type { PlantId } from '../../../domain/plant-id.js';
import type { StoredPlant } from '../../../domain/plant.js';
import type { PlantEvent, WebhookEventType } from '../../../domain/webhook.js';
import type { PlantStore } from '../../../ports/plant-store.js';
import { DUPLICATE_KEY, withinDeadline } from './mongo-errors.js';
import { plantQuotaReached } from '../../../domain/plant-quota.js';
import type { PlantCounts } from './plant-counts.js';

/** A plant as stored: `id` is a BSON int64 (a bigint here), never a double. */
export interface PlantDocument {
  tenant: string;
  id: bigint;
  name: string;
  tag?: string;
  /** Webhook deliveries of the plant's events, by delivery key (see mongo-webhook-outbox.ts). */
  pending?: Record<string, PendingEntry>;
  /** The earliest `due` of `pending`: what the outbox polls (absent when nothing is pending). */
  due?: Date;
}

/** One delivery waiting in a plant's document. */
export interface PendingEntry {
  sub: string;
  event: string;
  type: WebhookEventType;
  body: string;
  at: Date;
  due: Date;
  attempts: number;
}

/** Records an event: the entries to put in the plant's document (none without subscribers). */
export type EventEntries = (
  tenant: string,
  event: PlantEvent,
) => Promise<Record<string, PendingEntry> | undefined>;

/** The one document readiness rewrites. */
export interface ProbeDocument {
  _id: string;
  at: Date;
}

export const COLLECTION = 'plants';
export const PROBE_COLLECTION = 'readiness';
export const INDEX_NAME = 'tenant_1_id_1';

// Never _id or tenant: a listed document is exactly a StoredPlant.
const PROJECTION = { _id: 0, id: 1, name: 1, tag: 1 } as const;

/**
 * Plants in one MongoDB collection, one document per plant, unique on (tenant, id). Every query
 * is built here from a string tenant and a bigint id, so no request value can become an operator.
 */
export class MongoPlantStore implements PlantStore {
  constructor(
    private readonly client: MongoClient,
    private readonly plants: Collection<PlantDocument>,
    /** Absent: no quota. */
    private readonly counts?: { quota: PlantCounts; max: number },
    /** Where readiness writes its probe; absent: readiness only pings. */
    private readonly probe?: Collection<ProbeDocument>,
    /** Absent: events are not recorded (no webhooks). */
    private readonly eventEntries?: EventEntries,
  ) {}

  /** One insertOne: the event's deliveries live in the plant's own document, so both or neither. */
  async insert(tenant: string, plant: StoredPlant, event?: PlantEvent): Promise<boolean> {
    const document: PlantDocument = { ...key(tenant, plant.id), name: plant.name };
    if (plant.tag !== undefined) document.tag = plant.tag;
    const pending = event && (await this.eventEntries?.(tenant, event));
    if (pending !== undefined) {
      document.pending = pending;
      document.due = new Date(
        Math.min(...Object.values(pending).map((entry) => entry.due.getTime())),
      );
    }
    const counts = this.counts;
    if (counts === undefined) return this.run(() => this.insertOne(document));
    if (!(await this.run(() => counts.quota.reserve(tenant)))) {
      // A duplicate is a duplicate, full tenant or not, as on every store.
      const taken = await this.run(() =>
        this.plants.findOne(key(tenant, plant.id), { projection: { _id: 1 } }),
      );
      if (taken !== null) return false;
      throw plantQuotaReached(counts.max);
    }
    return this.run(async () => {
      let stored: boolean | undefined;
      try {
        stored = await this.insertOne(document);
        return stored;
      } finally {
        // After an outage the insert may have happened: the place is kept (see PlantCounts).
        if (stored === false) await counts.quota.release(tenant).catch(() => {});
      }
    });
  }

  private async insertOne(document: PlantDocument): Promise<boolean> {
    try {
      await this.plants.insertOne(document);
      return true;
    } catch (error) {
      if (error instanceof MongoServerError && error.code === DUPLICATE_KEY) return false;
      throw error;
    }
  }

  async list(tenant: string, after: PlantId | undefined, limit: number): Promise<StoredPlant[]> {
    // The driver reads limit 0 as "no limit".
    if (!(limit >= 1)) return [];
    const filter =
      after === undefined ? key(tenant) : { ...key(tenant), id: { $gt: exact(after) } };
    const documents = await this.run(() =>
      this.plants
        .find(filter, { projection: PROJECTION, sort: { id: 1 }, limit, batchSize: limit })
        .toArray(),
    );
    return documents.map(toStoredPlant);
  }

  async delete(tenant: string, id: PlantId): Promise<boolean> {
    const { deletedCount } = await this.run(() => this.plants.deleteOne(key(tenant, id)));
    if (deletedCount !== 1) return false;
    // The plant is gone whatever happens to its count; a count left high is only conservative.
    await this.counts?.quota.release(tenant).catch(() => {});
    return true;
  }

  /** A ping, then one small write: a server out of disk or read-only still answers pings. */
  async ping(): Promise<void> {
    await this.run(() => this.client.db('admin').command({ ping: 1 }));
    const probe = this.probe;
    if (probe === undefined) return;
    await this.run(() =>
      probe.updateOne({ _id: 'readiness' }, { $set: { at: new Date() } }, { upsert: true }),
    );
  }

  private run<T>(operation: () => Promise<T>): Promise<T> {
    return withinDeadline(operation);
  }
}

function key(tenant: string): { tenant: string };
function key(tenant: string, id: PlantId): { tenant: string; id: bigint };
function key(tenant: string, id?: PlantId): { tenant: string; id?: bigint } {
  // Types are checked at run time too: an object here could carry a query operator.
  if (typeof tenant !== 'string') throw new TypeError('tenant must be a string');
  if (id === undefined) return { tenant };
  return { tenant, id: exact(id) };
}

function exact(id: PlantId): bigint {
  if (typeof id !== 'bigint') throw new TypeError('id must be a bigint');
  return id;
}

function toStoredPlant(document: Partial<PlantDocument>): StoredPlant {
  // An int64 arrives as a bigint; an id written as int32 by another tool arrives as a number.
  const id = BigInt(document.id as bigint | number);
  const name = String(document.name);
  return typeof document.tag === 'string' ? { id, name, tag: document.tag } : { id, name };
}
