import type { NewPlant } from './plant.js';
import { jsonString } from './json-text.js';

/** The events a subscription can ask for (one so far; the list leaves room for more). */
export const WEBHOOK_EVENTS = ['plant.created'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

export const isWebhookEventType = (value: unknown): value is WebhookEventType =>
  WEBHOOK_EVENTS.includes(value as WebhookEventType);

/** What the core asks a store to record with a write, in the same atomic step. */
export type PlantEvent = { type: 'plant.created'; plant: NewPlant };

/** A receiver's standing: failed attempts since its last success (0 when healthy), the last error. */
export interface DeliveryHealth {
  readonly failures: number;
  /** Start of this run of failures: the disable period counts from it */
  readonly failingSince?: Date;
  readonly lastError?: string;
  readonly lastAttemptAt?: Date;
  readonly lastSuccessAt?: Date;
}

export interface WebhookSubscription {
  /** `wh_` and 16 hex digits */
  readonly id: string;
  readonly tenant: string;
  readonly url: string;
  /** `whsec_<base64>`: the Standard Webhooks signing key; never listed or logged. */
  readonly secret: string;
  readonly events: readonly WebhookEventType[];
  readonly enabled: boolean;
  readonly createdAt: Date;
  /** By `webhooks disable`, or after failing for the disable period */
  readonly disabledAt?: Date;
  readonly health: DeliveryHealth;
}

/** A change to a subscription; `disabledAt: null` clears the time. */
export type SubscriptionPatch = Partial<
  Pick<WebhookSubscription, 'secret' | 'enabled' | 'health' | 'url'>
> & { disabledAt?: Date | null };

export function applyPatch(
  subscription: WebhookSubscription,
  patch: SubscriptionPatch,
): WebhookSubscription {
  const { disabledAt, ...rest } = patch;
  const merged = { ...subscription, ...rest, ...(disabledAt && { disabledAt }) };
  if (disabledAt === null) delete (merged as { disabledAt?: Date }).disabledAt;
  return merged;
}

/** The body of a `plant.created` event: the NewPlant, its id an exact JSON integer (int64). */
export function eventBody(event: PlantEvent): string {
  const { id, name, tag } = event.plant;
  const head = `{"id":${id},"name":${jsonString(name)}`;
  return tag === undefined ? `${head}}` : `${head},"tag":${jsonString(tag)}}`;
}

export const wants = (subscription: WebhookSubscription, type: WebhookEventType): boolean =>
  subscription.enabled && subscription.events.includes(type);

/** A subscription request an operator may correct: its message says what is wrong. */
export class WebhookRequestError extends Error {
  override name = 'WebhookRequestError';
}
