import {
  applyPatch,
  wants,
  type SubscriptionPatch,
  type WebhookEventType,
  type WebhookSubscription,
} from '../../../domain/webhook.js';
import type { WebhookSubscriptions } from '../../../ports/webhook-subscriptions.js';
import { byCreation } from '../webhook-record.js';

/** The memory storage's webhook subscriptions; callers get copies, never the stored object. */
export class MemoryWebhookSubscriptions implements WebhookSubscriptions {
  private readonly subscriptions = new Map<string, WebhookSubscription>();

  async add(subscription: WebhookSubscription): Promise<boolean> {
    if (this.subscriptions.has(subscription.id)) return false;
    this.subscriptions.set(subscription.id, structuredClone(subscription));
    return true;
  }

  async find(id: string): Promise<WebhookSubscription | undefined> {
    return structuredClone(this.subscriptions.get(id));
  }

  async list(tenant?: string): Promise<WebhookSubscription[]> {
    return [...this.subscriptions.values()]
      .filter((subscription) => tenant === undefined || subscription.tenant === tenant)
      .sort(byCreation)
      .map((subscription) => structuredClone(subscription));
  }

  async update(id: string, patch: SubscriptionPatch): Promise<WebhookSubscription | undefined> {
    const found = this.subscriptions.get(id);
    if (found === undefined) return undefined;
    const changed = applyPatch(found, structuredClone(patch));
    this.subscriptions.set(id, changed);
    return structuredClone(changed);
  }

  async remove(id: string): Promise<boolean> {
    return this.subscriptions.delete(id);
  }

  /** The ids of the tenant's enabled subscriptions to the event. */
  targets(tenant: string, type: WebhookEventType): string[] {
    const ids: string[] = [];
    for (const subscription of this.subscriptions.values()) {
      if (subscription.tenant === tenant && wants(subscription, type)) ids.push(subscription.id);
    }
    return ids;
  }

  async close(): Promise<void> {}
}
