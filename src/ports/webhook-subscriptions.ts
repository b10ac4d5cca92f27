import type { SubscriptionPatch, WebhookSubscription } from '../domain/webhook.js';
import { portMethods } from './port-methods.js';

/** Driven port: webhook subscriptions per tenant; outages are `storage-unavailable` PlantErrors. */
export interface WebhookSubscriptions {
  /** Stores a new subscription; resolves false (storing nothing) when its id is taken. */
  add(subscription: WebhookSubscription): Promise<boolean>;
  /** Resolves the subscription with this id, or undefined. */
  find(id: string): Promise<WebhookSubscription | undefined>;
  /** Resolves every subscription, or the tenant's, oldest first. */
  list(tenant?: string): Promise<WebhookSubscription[]>;
  /** Applies the patch; resolves the changed subscription, or undefined when absent. */
  update(id: string, patch: SubscriptionPatch): Promise<WebhookSubscription | undefined>;
  /** Removes it (its pending deliveries are dropped when due); resolves false when absent. */
  remove(id: string): Promise<boolean>;
  /** Releases connections; the store is not used afterwards. */
  close(): Promise<void>;
}

export const WEBHOOK_SUBSCRIPTIONS_METHODS = portMethods<WebhookSubscriptions>()([
  'add',
  'find',
  'list',
  'update',
  'remove',
  'close',
]);
