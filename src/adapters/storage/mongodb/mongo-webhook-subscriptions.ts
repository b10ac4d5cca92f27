import type { Collection } from 'mongodb';
import type {
  SubscriptionPatch,
  WebhookEventType,
  WebhookSubscription,
} from '../../../domain/webhook.js';
import type { WebhookSubscriptions } from '../../../ports/webhook-subscriptions.js';
import { byCreation, fromRecord, patchEntries, toRecord } from '../webhook-record.js';
import { insertNew, text, withinDeadline } from './mongo-client.js';

/** A subscription as stored: its record (dates as ISO text), the id as `_id`. */
type SubscriptionDocument = { _id: string } & Record<string, unknown>;

export const WEBHOOK_COLLECTION = 'webhooks';

const toSubscription = ({ _id, ...rest }: SubscriptionDocument): WebhookSubscription =>
  fromRecord({ ...rest, id: _id });

/**
 * Webhook subscriptions in MongoDB, one document each. The plant store asks `targets` when it
 * records an event; it answers from a copy of the enabled subscriptions at most `cacheMs` old.
 */
export class MongoWebhookSubscriptions implements WebhookSubscriptions {
  private cache:
    { at: number; byTenant: Map<string, { id: string; events: string[] }[]> } | undefined;
  private loading: Promise<void> | undefined;

  constructor(
    private readonly webhooks: Collection<SubscriptionDocument>,
    private readonly cacheMs = 1000,
  ) {}

  async add(subscription: WebhookSubscription): Promise<boolean> {
    const { id, ...record } = toRecord(subscription);
    const added = await insertNew(this.webhooks, { ...record, _id: text(id as string) });
    if (added) this.cache = undefined;
    return added;
  }

  async find(id: string): Promise<WebhookSubscription | undefined> {
    const document = await withinDeadline(() => this.webhooks.findOne({ _id: text(id) }));
    return document === null ? undefined : toSubscription(document);
  }

  async list(tenant?: string): Promise<WebhookSubscription[]> {
    const filter = tenant === undefined ? {} : { tenant: text(tenant) };
    const documents = await withinDeadline(() => this.webhooks.find(filter).toArray());
    return documents.map(toSubscription).sort(byCreation);
  }

  async update(id: string, patch: SubscriptionPatch): Promise<WebhookSubscription | undefined> {
    const update: { $set?: Record<string, unknown>; $unset?: Record<string, ''> } = {};
    for (const [field, value] of patchEntries(patch)) {
      if (value === undefined) (update.$unset ??= {})[field] = '';
      else (update.$set ??= {})[field] = value;
    }
    const document = await withinDeadline(() =>
      this.webhooks.findOneAndUpdate({ _id: text(id) }, update, { returnDocument: 'after' }),
    );
    this.cache = undefined;
    return document === null ? undefined : toSubscription(document);
  }

  async remove(id: string): Promise<boolean> {
    const { deletedCount } = await withinDeadline(() => this.webhooks.deleteOne({ _id: text(id) }));
    this.cache = undefined;
    return deletedCount === 1;
  }

  /** The ids of the tenant's enabled subscriptions to the event, from a copy at most `cacheMs` old. */
  async targets(tenant: string, type: WebhookEventType): Promise<string[]> {
    if (this.cache === undefined || Date.now() - this.cache.at >= this.cacheMs) {
      this.loading ??= this.load().finally(() => (this.loading = undefined));
      await this.loading;
    }
    return (this.cache?.byTenant.get(tenant) ?? [])
      .filter((entry) => entry.events.includes(type))
      .map((entry) => entry.id);
  }

  private async load(): Promise<void> {
    const enabled = await withinDeadline(() =>
      this.webhooks
        .find({ enabled: true }, { projection: { _id: 1, tenant: 1, events: 1 } })
        .toArray(),
    );
    const byTenant = new Map<string, { id: string; events: string[] }[]>();
    for (const document of enabled) {
      const tenant = String(document.tenant);
      const events = Array.isArray(document.events) ? document.events.map(String) : [];
      byTenant.set(tenant, [...(byTenant.get(tenant) ?? []), { id: document._id, events }]);
    }
    this.cache = { at: Date.now(), byTenant };
  }

  async close(): Promise<void> {}
}
