import { newEventId } from '../../../application/webhook-ids.js';
import { eventBody, type PlantEvent } from '../../../domain/webhook.js';
import type { PendingDelivery, WebhookOutbox } from '../../../ports/webhook-outbox.js';
import { toPendingDelivery, type DeliveryRecord } from '../webhook-record.js';
import type { LmdbDatabases } from './lmdb-environment.js';
import { tenantPrefix } from './lmdb-keys.js';
import { subscriptionsOf } from './lmdb-webhook-subscriptions.js';
import type { LmdbWriter } from './lmdb-writer.js';

/** One delivery as stored; `due` is also in the due index's key. */
type StoredDelivery = DeliveryRecord & { at: number; due: number };

// A claim looks at this many due entries beyond `max` at most, skipping tenants without room.
const SCAN_SLACK = 1000;
// Above every byte of UTF-8: the end of a range of keys that go on with UTF-8.
const END = Buffer.from([0xff]);

const deliveryKey = (prefix: Buffer, key: string): Buffer =>
  Buffer.concat([prefix, Buffer.from(key, 'utf8')]);

function dueKey(due: number, delivery: Buffer): Buffer {
  const key = Buffer.allocUnsafe(8 + delivery.length);
  key.writeBigUInt64BE(BigInt(Math.max(0, Math.trunc(due))), 0);
  delivery.copy(key, 8);
  return key;
}

/** The tenant and the delivery key of a due index key (8 bytes of time, the tenant's prefix, the key). */
function splitDue(key: Buffer): { tenant: string; key: string; delivery: Buffer } {
  const length = key.readUInt16BE(8);
  return {
    tenant: key.toString('utf8', 10, 10 + length),
    key: key.toString('utf8', 10 + length),
    delivery: key.subarray(8),
  };
}

/**
 * Records a plant's event for the tenant's enabled subscribers to it; runs inside the plant's
 * write transaction, so that a plant and its deliveries are committed together or not at all.
 */
export function recordEvent(
  dbs: LmdbDatabases,
  prefix: Buffer,
  event: PlantEvent,
  eventId?: string,
  now?: number,
): void {
  let body: string | undefined;
  for (const subscription of subscriptionsOf(dbs, prefix)) {
    if (!subscription.enabled || !subscription.events.includes(event.type)) continue;
    // Made once a subscription wants the event: most creates have none to record.
    body ??= eventBody(event);
    eventId ??= newEventId();
    now ??= Date.now();
    const key = deliveryKey(prefix, `${eventId}:${subscription.id}`);
    const stored: StoredDelivery = {
      ...{ sub: subscription.id, event: eventId, type: event.type, body },
      ...{ at: now, attempts: 0, due: now },
    };
    void dbs.deliveries.put(key, stored);
    void dbs.due.put(dueKey(now, key), true);
  }
}

/**
 * The deliveries the plant store recorded, in the environment: one entry each, and an index by due
 * time. A claim runs in the environment's write transaction, which every process shares, so that
 * of two instances (or processes) only one claims each delivery; it moves the delivery's due time
 * to the lease's end, so that a lost lease makes it due again.
 */
export class LmdbWebhookOutbox implements WebhookOutbox {
  constructor(
    private readonly dbs: LmdbDatabases,
    private readonly writer: LmdbWriter,
  ) {}

  claim(
    now: Date,
    max: number,
    leaseMs: number,
    roomFor: (tenant: string) => number = () => Infinity,
  ): Promise<PendingDelivery[]> {
    const until = now.getTime() + leaseMs;
    const end = dueKey(now.getTime() + 1, Buffer.alloc(0));
    // Nothing due (the usual poll): no write transaction, no flush.
    if (this.dbs.due.getKeysCount({ end, limit: 1 }) === 0) return Promise.resolve([]);
    return this.writer.write(() => {
      const taken = new Map<string, number>();
      const claimed: { due: Buffer; delivery: Buffer; tenant: string; key: string }[] = [];
      for (const due of this.dbs.due.getKeys({ end, limit: max + SCAN_SLACK })) {
        if (claimed.length >= max) break;
        const { tenant, key, delivery } = splitDue(due);
        const count = taken.get(tenant) ?? 0;
        if (count >= roomFor(tenant)) continue;
        taken.set(tenant, count + 1);
        claimed.push({ due, delivery, tenant, key });
      }
      const deliveries: PendingDelivery[] = [];
      for (const { due, delivery, tenant, key } of claimed) {
        void this.dbs.due.remove(due);
        const stored = this.dbs.deliveries.get(delivery) as StoredDelivery | undefined;
        if (stored === undefined) continue;
        void this.dbs.deliveries.put(delivery, { ...stored, due: until });
        void this.dbs.due.put(dueKey(until, delivery), true);
        const pending = toPendingDelivery(tenant, key, stored);
        if (pending !== undefined) deliveries.push(pending);
      }
      return deliveries;
    });
  }

  async complete(delivery: PendingDelivery): Promise<void> {
    const key = deliveryKey(tenantPrefix(delivery.tenant), delivery.key);
    await this.writer.write(() => {
      const stored = this.dbs.deliveries.get(key) as StoredDelivery | undefined;
      if (stored === undefined) return;
      void this.dbs.due.remove(dueKey(stored.due, key));
      void this.dbs.deliveries.remove(key);
    });
  }

  async retry(delivery: PendingDelivery, due: Date, attempts: number): Promise<void> {
    const key = deliveryKey(tenantPrefix(delivery.tenant), delivery.key);
    await this.writer.write(() => {
      const stored = this.dbs.deliveries.get(key) as StoredDelivery | undefined;
      if (stored === undefined) return;
      void this.dbs.due.remove(dueKey(stored.due, key));
      void this.dbs.deliveries.put(key, { ...stored, due: due.getTime(), attempts });
      void this.dbs.due.put(dueKey(due.getTime(), key), true);
    });
  }

  async size(tenant?: string): Promise<number> {
    if (tenant === undefined) return this.dbs.deliveries.getCount();
    const prefix = tenantPrefix(tenant);
    return this.dbs.deliveries.getCount({ start: prefix, end: Buffer.concat([prefix, END]) });
  }

  async close(): Promise<void> {}
}
