import {
  applyPatch,
  type SubscriptionPatch,
  type WebhookSubscription,
} from '../../../domain/webhook.js';
import type { WebhookSubscriptions } from '../../../ports/webhook-subscriptions.js';
import { byCreation, fromRecord, toRecord, type SubscriptionRecord } from '../webhook-record.js';
import type { LmdbDatabases } from './lmdb-environment.js';
import { tenantPrefix } from './lmdb-keys.js';
import type { LmdbWriter } from './lmdb-writer.js';

const END = Buffer.from([0xff]);

const text = (value: string): string => {
  if (typeof value !== 'string') throw new TypeError('ids and tenants must be strings');
  return value;
};

const indexKey = (tenant: string, id: string): Buffer =>
  Buffer.concat([tenantPrefix(tenant), Buffer.from(id, 'utf8')]);

/** The tenant's subscriptions (of `prefix`), read in the current transaction: its write one, in a write. */
export function* subscriptionsOf(
  dbs: LmdbDatabases,
  prefix: Buffer,
): Generator<WebhookSubscription> {
  const end = Buffer.concat([prefix, END]);
  for (const key of dbs.webhookIndex.getKeys({ start: prefix, end })) {
    const record = dbs.webhooks.get(key.toString('utf8', prefix.length)) as
      SubscriptionRecord | undefined;
    if (record !== undefined) yield fromRecord(record);
  }
}

/**
 * Webhook subscriptions in the environment: each record by id, and an index of each tenant's, which
 * the plant store reads in its write transaction when it records an event (no copy to go stale).
 */
export class LmdbWebhookSubscriptions implements WebhookSubscriptions {
  constructor(
    private readonly dbs: LmdbDatabases,
    private readonly writer: LmdbWriter,
  ) {}

  add(subscription: WebhookSubscription): Promise<boolean> {
    const record = toRecord(subscription);
    const id = text(subscription.id);
    const index = indexKey(subscription.tenant, id);
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
    if (tenant !== undefined)
      return [...subscriptionsOf(this.dbs, tenantPrefix(tenant))].sort(byCreation);
    const all: WebhookSubscription[] = [];
    for (const { value } of this.dbs.webhooks.getRange())
      all.push(fromRecord(value as SubscriptionRecord));
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
      void this.dbs.webhookIndex.remove(indexKey(String(record.tenant), id));
      return true;
    });
  }

  async close(): Promise<void> {}
}
