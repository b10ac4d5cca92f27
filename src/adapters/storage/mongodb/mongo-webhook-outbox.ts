import { ObjectId, type AnyBulkWriteOperation, type Collection } from 'mongodb';
import { eventBody, type PlantEvent } from '../../../domain/webhook.js';
import type { PendingDelivery, WebhookOutbox } from '../../../ports/webhook-outbox.js';
import { newEventId } from '../../../application/webhook-ids.js';
import { withinDeadline } from './mongo-client.js';
import { bulkWriteChunks, type PendingEntry, type PlantDocument } from './mongo-plant-store.js';
import type { MongoWebhookSubscriptions } from './mongo-webhook-subscriptions.js';

/** A document without deliveries: no `pending`, no `due`, no lease. */
const FORGET = { $unset: { pending: '', due: '', lease: '' } } as const;

/**
 * The deliveries kept in the plants' own documents (`pending`, and `due` their earliest time), so
 * that an event is stored with its plant in one insert, without transactions (FerretDB has none).
 * A claim moves due documents' time to the lease's end in one update conditioned on their being
 * due, so that of two instances one claims each. Deleting a plant deletes its deliveries.
 */
export class MongoWebhookOutbox implements WebhookOutbox {
  /** Claimed delivery key -> whether it was its document's only delivery. */
  private readonly single = new Map<string, boolean>();
  private completions: { delivery: PendingDelivery; settle: (error?: unknown) => void }[] = [];
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly plants: Collection<PlantDocument>,
    private readonly ferretdb = false,
  ) {}

  /** What the plant store puts in a new plant's document for the tenant's subscribers. */
  static entries(subscriptions: MongoWebhookSubscriptions) {
    return async (tenant: string, event: PlantEvent) => {
      const ids = await subscriptions.targets(tenant, event.type);
      if (ids.length === 0) return undefined;
      const [eventId, body, now] = [newEventId(), eventBody(event), new Date()];
      return Object.fromEntries(
        ids.map((sub): [string, PendingEntry] => [
          `${eventId}:${sub}`,
          { sub, event: eventId, type: event.type, body, at: now, due: now, attempts: 0 },
        ]),
      );
    };
  }

  async claim(
    now: Date,
    max: number,
    leaseMs: number,
    roomFor: (tenant: string) => number = () => Infinity,
  ): Promise<PendingDelivery[]> {
    const until = new Date(now.getTime() + leaseMs);
    // Due documents of the tenants with room: a tenant without room is left out of the next look,
    // so that the others' are reached however many it has due.
    const taken = new Map<string, number>();
    const full = new Set<string>();
    const ids: ObjectId[] = [];
    for (;;) {
      const want = max - ids.length;
      const filter = {
        due: { $lte: now },
        ...(full.size > 0 && { tenant: { $nin: [...full] }, _id: { $nin: ids } }),
      };
      const documents = await withinDeadline(() =>
        this.plants.find(filter, { projection: { tenant: 1 }, limit: want }).toArray(),
      );
      const before = full.size;
      for (const { _id, tenant } of documents) {
        const count = taken.get(tenant) ?? 0;
        if (count < roomFor(tenant)) {
          taken.set(tenant, count + 1);
          ids.push(_id);
        }
        if (count + 1 >= roomFor(tenant)) full.add(tenant);
      }
      // Another look only when this one was cut by its limit and met tenants without room.
      if (ids.length >= max || documents.length < want || full.size === before) break;
    }
    if (ids.length === 0) return [];
    // One update, conditioned on still being due; the lease token tells which documents it moved.
    const lease = new ObjectId().toHexString();
    await withinDeadline(() =>
      this.plants.updateMany(
        { _id: { $in: ids }, due: { $lte: now } },
        { $set: { due: until, lease } },
      ),
    );
    const claimed = await withinDeadline(() =>
      this.plants
        .find({ _id: { $in: ids }, lease }, { projection: { tenant: 1, pending: 1 } })
        .toArray(),
    );
    // The bounds count deliveries (one a subscription). Claimed deliveries carry the lease's end as
    // their time, the document its earliest, so that what the claim left stays due at its time; a
    // document's only delivery needs no such write: the document's time is its lease.
    const deliveries: PendingDelivery[] = [];
    const perTenant = new Map<string, number>();
    const leases: AnyBulkWriteOperation<PlantDocument>[] = [];
    for (const document of claimed) {
      const entries = Object.entries(document.pending ?? {});
      const mine: string[] = [];
      let earliest = until.getTime();
      for (const [key, entry] of entries) {
        const count = perTenant.get(document.tenant) ?? 0;
        if (entry.due <= now && deliveries.length < max && count < roomFor(document.tenant)) {
          perTenant.set(document.tenant, count + 1);
          mine.push(key);
          const deliveryKey = `${document._id.toHexString()} ${key}`;
          this.single.set(deliveryKey, entries.length === 1);
          const { sub, event, type, body, attempts, at } = entry;
          deliveries.push({
            ...{ key: deliveryKey, tenant: document.tenant, subscriptionId: sub, eventId: event },
            ...{ type, body, attempts, createdAt: at },
          });
        } else earliest = Math.min(earliest, entry.due.getTime());
      }
      if (entries.length === 1 && mine.length === 1) continue;
      const leased = Object.fromEntries(mine.map((key) => [`pending.${key}.due`, until]));
      leases.push({
        updateOne: {
          filter: { _id: document._id, lease },
          update: { $set: { ...leased, due: new Date(earliest) } },
        },
      });
    }
    // FerretDB v1 never completes a command of 100 updates (FERRETDB_UPDATES).
    for (const { chunk } of bulkWriteChunks(leases, this.ferretdb)) {
      await withinDeadline(() => this.plants.bulkWrite(chunk, { ordered: false }));
    }
    return deliveries;
  }

  /** In batches: the documents whose only delivery is done in one updateMany (FerretDB scans a write). */
  complete(delivery: PendingDelivery): Promise<void> {
    return new Promise((resolve, reject) => {
      this.completions.push({ delivery, settle: (error) => (error ? reject(error) : resolve()) });
      this.flushing ??= new Promise<void>((wake) => setTimeout(wake, 5)).then(() => this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.completions;
    this.completions = [];
    this.flushing = undefined;
    const whole = batch.filter(({ delivery }) => this.single.get(delivery.key) === true);
    const partial = batch.filter(({ delivery }) => this.single.get(delivery.key) !== true);
    for (const { delivery } of batch) this.single.delete(delivery.key);
    const write = async (items: typeof batch, work: () => Promise<unknown>) => {
      try {
        await work();
        for (const item of items) item.settle();
      } catch (error) {
        for (const item of items) item.settle(error);
      }
    };
    await Promise.all([
      whole.length > 0 &&
        write(whole, () =>
          withinDeadline(() =>
            this.plants.updateMany(
              { _id: { $in: whole.map(({ delivery }) => split(delivery.key)[0]) } },
              FORGET,
            ),
          ),
        ),
      ...partial.map((item) =>
        write([item], async () => {
          const [_id, key] = split(item.delivery.key);
          await withinDeadline(() =>
            this.plants.updateOne({ _id }, { $unset: { [`pending.${key}`]: '' } }),
          );
          await this.settle(_id);
        }),
      ),
    ]);
  }

  async retry(delivery: PendingDelivery, due: Date, attempts: number): Promise<void> {
    const [_id, key] = split(delivery.key);
    const single = this.single.get(delivery.key) === true;
    this.single.delete(delivery.key);
    const fields = { [`pending.${key}.due`]: due, [`pending.${key}.attempts`]: attempts };
    await withinDeadline(() =>
      this.plants.updateOne(
        { _id, [`pending.${key}`]: { $exists: true } },
        // A document's only delivery sets the document's due time too: one write.
        { $set: single ? { ...fields, due } : fields },
      ),
    );
    if (!single) await this.settle(_id);
  }

  /**
   * Sets the document's due time to its earliest entry's, or removes both when none is left. Entries
   * only go or move later, so a stale read can only make a document due early, never lose one.
   */
  private async settle(_id: ObjectId): Promise<void> {
    const document = await withinDeadline(() =>
      this.plants.findOne({ _id }, { projection: { pending: 1 } }),
    );
    if (document === null) return;
    const entries = Object.values(document.pending ?? {});
    const update =
      entries.length === 0
        ? { $unset: { pending: '' as const, due: '' as const } }
        : { $set: { due: new Date(Math.min(...entries.map((entry) => entry.due.getTime()))) } };
    await withinDeadline(() => this.plants.updateOne({ _id }, update));
  }

  async trim(tenant: string, keep: number): Promise<number> {
    const documents = await withinDeadline(() =>
      this.plants
        .find({ tenant, due: { $exists: true } }, { projection: { pending: 1 } })
        .toArray(),
    );
    const held = documents.map(({ _id, pending = {} }) => {
      const entries = Object.values(pending);
      return { _id, count: entries.length, at: Math.min(...entries.map((e) => e.at.getTime())) };
    });
    const over = held.reduce((sum, { count }) => sum + count, 0) - keep;
    let forgotten = 0;
    const dropped: ObjectId[] = [];
    // Oldest first, a document's deliveries all together (they are of one event).
    for (const { _id, count } of held.sort((a, b) => a.at - b.at)) {
      if (forgotten >= over) break;
      dropped.push(_id);
      forgotten += count;
    }
    if (dropped.length === 0) return 0;
    await withinDeadline(() => this.plants.updateMany({ _id: { $in: dropped } }, FORGET));
    return forgotten;
  }

  async size(tenant?: string): Promise<number> {
    const filter = { ...(tenant !== undefined && { tenant }), due: { $exists: true } };
    const documents = await withinDeadline(() =>
      this.plants.find(filter, { projection: { pending: 1 } }).toArray(),
    );
    return documents.reduce((sum, document) => sum + Object.keys(document.pending ?? {}).length, 0);
  }

  async close(): Promise<void> {}
}

function split(key: string): [ObjectId, string] {
  const space = key.indexOf(' ');
  return [new ObjectId(key.slice(0, space)), key.slice(space + 1)];
}
