import type { WebhookEventType } from '../../../domain/webhook.js';

/**
 * The hash tag every key of a tenant starts with, so that its scripts touch one cluster slot. The
 * tenant is base64url-encoded, so that no tenant name ({, }, :, *) can end the tag early or collide.
 */
export const tenantTag = (prefix: string, tenant: string): string =>
  `${prefix}{${Buffer.from(tenant, 'utf8').toString('base64url')}}`;

/** The keys of a tenant's webhooks, all in the slot of its plants. */
export const webhookKeys = (prefix: string, tenant: string) => ({
  /** Hash: subscription id -> subscription JSON. */
  subscriptions: `${tenantTag(prefix, tenant)}:webhooks`,
  /** Set: ids of the enabled subscriptions to an event, read by the insert script. */
  targets: (type: WebhookEventType) => `${tenantTag(prefix, tenant)}:webhooks:${type}`,
  /** Sorted set: delivery key (`<event id>:<subscription id>`) by due time (ms). */
  outbox: `${tenantTag(prefix, tenant)}:outbox`,
  /** Hash: delivery key -> {sub, event, type, body, at, attempts}. */
  deliveries: `${tenantTag(prefix, tenant)}:outbox:deliveries`,
});

/** Hash (one key, outside any tenant's slot): subscription id -> tenant; the tenants to poll. */
export const webhookIndexKey = (prefix: string): string => `${prefix}webhooks`;

/** Set: every tenant that ever had a subscription; the tenants whose outboxes are polled. */
export const webhookTenantsKey = (prefix: string): string => `${prefix}webhook-tenants`;
