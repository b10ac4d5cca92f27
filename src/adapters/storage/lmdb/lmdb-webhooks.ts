import { newEventId } from '../../../application/webhook-ids.js';
import {
  applyPatch,
  eventBody,
  type PlantEvent,
  type SubscriptionPatch,
  type WebhookSubscription,
} from '../../../domain/webhook.js';
import type { PendingDelivery, WebhookOutbox } from '../../../ports/webhook-outbox.js';
import type { WebhookSubscriptions } from '../../../ports/webhook-subscriptions.js';
import {
  byCreation,
  fromRecord,
  toPendingDelivery,
  toRecord,
  type DeliveryRecord,
  type SubscriptionRecord,
} from '../webhook-record.js';
import { tenantPrefix, text, type LmdbDatabases } from './lmdb-environment.js';
import type { LmdbWriter } from './lmdb-writer.js';

/** One delivery as stored; `due` is also in the due index's key. */
type StoredDelivery = DeliveryRecord & { at: number; due: number };

// Above every byte of UTF-8: the end of a range of keys that go on with UTF-8.
const END = Buffer.from([0xff]);
// The due index's keys: this byte, the tenant's prefix, due ms (8 bytes), the delivery key, so
// that a claim takes each tenant's due deliveries apart. Keys starting below it are the time-first
// keys of earlier versions, moved by the next claim.
const BY_TENANT = Buffer.from([1]);

/** A delivery's key, or a subscription's in the tenant's index: the tenant's prefix, the key. */
const deliveryKey = (prefix: Buffer, key: string): Buffer =>
  Buffer.concat([prefix, Buffer.from(key, 'utf8')]);

const prefixLength = (delivery: Buffer, at = 0): number => 2 + delivery.readUInt16BE(at);

function time(due: number): Buffer {
  const bytes = Buffer.allocUnsafe(8);
  bytes.writeBigUInt64BE(BigInt(Math.max(0, Math.trunc(due))), 0);
  return bytes;
}

function dueKey(due: number, delivery: Buffer): Buffer {
  const at = prefixLength(delivery);
  return Buffer.concat([BY_TENANT, delivery.subarray(0, at), time(due), delivery.subarray(at)]);
}

/** A tenant's keys (of its `prefix`) in the webhook databases. */
const within = (prefix: Buffer) => ({ start: prefix, end: Buffer.concat([prefix, END]) });

/** The tenant's subscriptions (of `prefix`), read in the current transaction: its write one, in a write. */
function* subscriptionsOf(dbs: LmdbDatabases, prefix: Buffer): Generator<WebhookSubscription> {
  for (const key of dbs.webhookIndex.getKeys(within(prefix))) {
    const record = dbs.webhooks.get(key.toString('utf8', prefix.length)) as
      SubscriptionRecord | undefined;
    if (record !== undefined) yield fromRecord(record);
  }
}

// Webhook subscriptions by id, and an index of each tenant's, which the plant store reads in its
// write transaction when it records an event (no copy to go stale).
export class LmdbWebhookSubscriptions implements WebhookSubscriptions {
  constructor(
    private readonly dbs: LmdbDatabases,
    private readonly writer: LmdbWriter,
  ) {}

  add(subscription: WebhookSubscription): Promise<boolean> {
    const record = toRecord(subscription);
    const id = text(subscription.id);
    const index = deliveryKey(tenantPrefix(subscription.tenant), id);
    return this.writer.write(() => {
      if (this.dbs.webhooks.doesExist(id)) return false;
      void this.dbs.webhooks.put(id, record);
      void this.dbs.webhookIndex.put(index, true);
      return true;
    });
  }

  async find(id: string): Promise<WebhookSubscription | undefined> {
    const record = this.dbs.webhooks.get(text(id)) as SubscriptionRecord | undefined;
    return record === undefined ? undefined : fromRecord(record);
  }

  async list(tenant?: string): Promise<WebhookSubscription[]> {
    const all =
      tenant === undefined
        ? Array.from(this.dbs.webhooks.getRange(), ({ value }) =>
            fromRecord(value as SubscriptionRecord),
          )
        : [...subscriptionsOf(this.dbs, tenantPrefix(tenant))];
    return all.sort(byCreation);
  }

  update(id: string, patch: SubscriptionPatch): Promise<WebhookSubscription | undefined> {
    return this.writer.write(() => {
      const record = this.dbs.webhooks.get(text(id)) as SubscriptionRecord | undefined;
      if (record === undefined) return undefined;
      const changed = applyPatch(fromRecord(record), patch);
      void this.dbs.webhooks.put(id, toRecord(changed));
      return changed;
    });
  }

  remove(id: string): Promise<boolean> {
    return this.writer.write(() => {
      const record = this.dbs.webhooks.get(text(id)) as SubscriptionRecord | undefined;
      if (record === undefined) return false;
      void this.dbs.webhooks.remove(id);
      void this.dbs.webhookIndex.remove(deliveryKey(tenantPrefix(String(record.tenant)), id));
      return true;
    });
  }

  async close(): Promise<void> {}
}

// Records a plant's event for the tenant's enabled subscribers to it, inside the plant's write
// transaction: a plant and its deliveries are committed together or not at all.
export function recordEvent(dbs: LmdbDatabases, prefix: Buffer, event: PlantEvent): void {
  let made: { body: string; eventId: string; now: number } | undefined;
  for (const subscription of subscriptionsOf(dbs, prefix)) {
    if (!subscription.enabled || !subscription.events.includes(event.type)) continue;
    // Made once a subscription wants the event: most creates have none to record.
    made ??= { body: eventBody(event), eventId: newEventId(), now: Date.now() };
    const { body, eventId, now } = made;
    const key = deliveryKey(prefix, `${eventId}:${subscription.id}`);
    const stored: StoredDelivery = {
      ...{ sub: subscription.id, event: eventId, type: event.type, body },
      ...{ at: now, attempts: 0, due: now },
    };
    void dbs.deliveries.put(key, stored);
    void dbs.due.put(dueKey(now, key), true);
  }
}

// The deliveries the plant store recorded, and an index by tenant and due time. A claim runs in the
// write transaction every process shares (one claims each delivery), and moves its due time to
// the lease's end, so that a lost lease makes it due again.
export class LmdbWebhookOutbox implements WebhookOutbox {
  constructor(
    private readonly dbs: LmdbDatabases,
    private readonly writer: LmdbWriter,
  ) {}

  /** Where the next claim's walk over the tenants starts: after the tenant last served. */
  private next: Buffer = BY_TENANT;

  claim(
    now: Date,
    max: number,
    leaseMs: number,
    roomFor: (tenant: string) => number = () => Infinity,
  ): Promise<PendingDelivery[]> {
    const until = now.getTime() + leaseMs;
    const { due } = this.dbs;
    const legacy = () => due.getKeysCount({ end: BY_TENANT, limit: 1 }) > 0;
    // Each tenant with room, from where the last claim stopped: its due keys, up to its room.
    const pick = (): { picked: Buffer[]; next: Buffer } => {
      const picked: Buffer[] = [];
      for (const prefix of this.tenants()) {
        const room = Math.min(max - picked.length, roomFor(prefix.toString('utf8', 2)));
        if (room <= 0) continue;
        const start = Buffer.concat([BY_TENANT, prefix]);
        const end = Buffer.concat([start, time(now.getTime() + 1)]);
        picked.push(...due.getKeys({ start, end, limit: room }));
        if (picked.length >= max) return { picked, next: Buffer.concat([start, END]) };
      }
      return { picked, next: this.next };
    };
    // Nothing due (the usual poll): no write transaction, no flush.
    if (!legacy() && pick().picked.length === 0) return Promise.resolve([]);
    return this.writer.write(() => {
      for (const old of legacy() ? due.getKeys({ end: BY_TENANT }) : []) {
        void due.remove(old);
        void due.put(dueKey(Number(old.readBigUInt64BE(0)), old.subarray(8)), true);
      }
      const { picked, next } = pick();
      this.next = next;
      const deliveries: PendingDelivery[] = [];
      for (const dueAt of picked) {
        // The delivery's key (tenant prefix and key) around the due time.
        const end = 1 + prefixLength(dueAt, 1);
        const delivery = Buffer.concat([dueAt.subarray(1, end), dueAt.subarray(end + 8)]);
        void due.remove(dueAt);
        const stored = this.dbs.deliveries.get(delivery) as StoredDelivery | undefined;
        if (stored === undefined) continue;
        void this.dbs.deliveries.put(delivery, { ...stored, due: until });
        void due.put(dueKey(until, delivery), true);
        const tenant = dueAt.toString('utf8', 3, end);
        const pending = toPendingDelivery(tenant, dueAt.toString('utf8', end + 8), stored);
        if (pending !== undefined) deliveries.push(pending);
      }
      return deliveries;
    });
  }

  /** The prefixes of the tenants with deliveries in the due index, from `next` round to it. */
  private *tenants(): Generator<Buffer> {
    for (const [from, to] of [
      [this.next, END],
      [BY_TENANT, this.next],
    ] as const) {
      let start = from;
      for (;;) {
        const [key] = this.dbs.due.getKeys({ start, end: to, limit: 1 });
        if (key === undefined) break;
        const prefix = key.subarray(1, 1 + prefixLength(key, 1));
        yield prefix;
        start = Buffer.concat([BY_TENANT, prefix, END]);
      }
    }
  }

  complete(delivery: PendingDelivery): Promise<void> {
    return this.move(delivery);
  }

  retry(delivery: PendingDelivery, due: Date, attempts: number): Promise<void> {
    return this.move(delivery, { due: due.getTime(), attempts });
  }

  /** The delivery out of the due index, then removed, or changed by `next` and due again. */
  private async move(delivery: PendingDelivery, next?: Pick<StoredDelivery, 'due' | 'attempts'>) {
    const key = deliveryKey(tenantPrefix(delivery.tenant), delivery.key);
    const { deliveries, due } = this.dbs;
    await this.writer.write(() => {
      const stored = deliveries.get(key) as StoredDelivery | undefined;
      if (stored === undefined) return;
      void due.remove(dueKey(stored.due, key));
      if (next === undefined) return void deliveries.remove(key);
      void deliveries.put(key, { ...stored, ...next });
      void due.put(dueKey(next.due, key), true);
    });
  }

  async trim(tenant: string, keep: number): Promise<number> {
    const prefix = tenantPrefix(tenant);
    const { deliveries, due } = this.dbs;
    // Fresh options each time: lmdb-js's getCount marks the ones it is given.
    if (deliveries.getCount(within(prefix)) <= keep) return 0;
    return this.writer.write(() => {
      const all = [...deliveries.getRange(within(prefix))] as {
        key: Buffer;
        value: StoredDelivery;
      }[];
      const oldest = all
        .sort((a, b) => Number(a.value.at) - Number(b.value.at))
        .slice(0, Math.max(0, all.length - keep));
      for (const { key, value } of oldest) {
        void due.remove(dueKey(value.due, key));
        void deliveries.remove(key);
      }
      return oldest.length;
    });
  }

  async size(tenant?: string): Promise<number> {
    return this.dbs.deliveries.getCount(tenant === undefined ? {} : within(tenantPrefix(tenant)));
  }

  async close(): Promise<void> {}
}
