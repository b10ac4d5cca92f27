import type { WebhookEventType } from '../../../domain/webhook.js';

/** The hash tag of a tenant's keys, as plantsKey builds it: every key of a tenant is in one slot. */
const tag = (prefix: string, tenant: string): string =>
  `${prefix}{${Buffer.from(tenant, 'utf8').toString('base64url')}}`;

/** The keys of a tenant's webhooks, all in the slot of its plants. */
export const webhookKeys = (prefix: string, tenant: string) => ({
  /** Hash: subscription id -> subscription JSON. */
  subscriptions: `${tag(prefix, tenant)}:webhooks`,
  /** Set: ids of the enabled subscriptions to an event, read by the insert script. */
  targets: (type: WebhookEventType) => `${tag(prefix, tenant)}:webhooks:${type}`,
  /** Sorted set: delivery key (`<event id>:<subscription id>`) by due time (ms). */
  outbox: `${tag(prefix, tenant)}:outbox`,
  /** Hash: delivery key -> {sub, event, type, body, at, attempts}. */
  deliveries: `${tag(prefix, tenant)}:outbox:deliveries`,
});

/** Hash (one key, outside any tenant's slot): subscription id -> tenant; the tenants to poll. */
export const webhookIndexKey = (prefix: string): string => `${prefix}webhooks`;

/** Set: every tenant that ever had a subscription; the tenants whose outboxes are polled. */
export const webhookTenantsKey = (prefix: string): string => `${prefix}webhook-tenants`;
