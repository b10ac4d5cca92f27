import type { WebhookSubscription } from '../domain/webhook.js';

/** A subscription request, as an operator gives it; `plant.created` when no events. */
export interface SubscriptionRequest {
  tenant: string;
  url: string;
  events?: readonly string[];
}

/** Driving port: subscriptions; refusals are WebhookRequestErrors, outages PlantErrors. */
export interface WebhookAdministration {
  /** Adds a subscription; the result holds its secret, which is shown once. */
  add(request: SubscriptionRequest): Promise<WebhookSubscription>;
  /** Resolves every subscription, or the tenant's, oldest first. */
  list(tenant?: string): Promise<WebhookSubscription[]>;
  /** Removes it; resolves false when absent. */
  remove(id: string): Promise<boolean>;
  /** A new secret; deliveries are signed with it from the next attempt on. Undefined when absent. */
  rotateSecret(id: string): Promise<WebhookSubscription | undefined>;
  /** Enabled again, with its failures forgotten. Undefined when absent. */
  enable(id: string): Promise<WebhookSubscription | undefined>;
  /** Disabled: nothing is delivered to it. Undefined when absent. */
  disable(id: string): Promise<WebhookSubscription | undefined>;
}

/** Driven port: why a receiver URL is refused (an address the policy forbids), or undefined. */
export type ReceiverUrlCheck = (url: string) => string | undefined;
