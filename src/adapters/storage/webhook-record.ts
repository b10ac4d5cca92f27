import type { PendingDelivery } from '../../ports/webhook-outbox.js';
import {
  applyPatch,
  isWebhookEventType,
  type DeliveryHealth,
  type SubscriptionPatch,
  type WebhookSubscription,
} from '../../domain/webhook.js';

/** A subscription as JSON (dates as ISO text): how the LMDB, Redis and MongoDB stores keep it. */
export type SubscriptionRecord = Record<string, unknown>;

type Created = { createdAt: Date; id: string };

const iso = (date: Date | undefined): string | undefined => date?.toISOString();

export function toRecord({ health, ...subscription }: WebhookSubscription): SubscriptionRecord {
  const { id, tenant, url, secret, events, enabled, createdAt, disabledAt } = subscription;
  const { failures, failingSince, lastError, lastAttemptAt, lastSuccessAt } = health;
  return {
    ...{ id, tenant, url, secret, events: [...events], enabled },
    ...{ createdAt: iso(createdAt), disabledAt: iso(disabledAt) },
    health: {
      ...{ failures, failingSince: iso(failingSince), lastError },
      ...{ lastAttemptAt: iso(lastAttemptAt), lastSuccessAt: iso(lastSuccessAt) },
    },
  };
}

/** The inverse of toRecord; throws on a record this code did not write. */
export function fromRecord(record: SubscriptionRecord): WebhookSubscription {
  const date = (value: unknown): Date | undefined => {
    const parsed = value === undefined || value === null ? undefined : new Date(String(value));
    if (Number.isNaN(parsed?.getTime())) throw new Error('a webhook subscription holds a bad date');
    return parsed;
  };
  const text = (what: 'id' | 'tenant' | 'url' | 'secret'): string => {
    const value = record[what];
    if (typeof value !== 'string') throw new Error(`a webhook subscription lacks its ${what}`);
    return value;
  };
  // Absent fields stay absent (exact optional properties).
  const defined = (fields: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
  const raw = (record.health ?? {}) as Record<string, unknown>;
  const health = {
    failures: typeof raw.failures === 'number' ? raw.failures : 0,
    ...defined({
      failingSince: date(raw.failingSince),
      lastError: typeof raw.lastError === 'string' ? raw.lastError : undefined,
      lastAttemptAt: date(raw.lastAttemptAt),
      lastSuccessAt: date(raw.lastSuccessAt),
    }),
  } as DeliveryHealth;
  return {
    ...{ id: text('id'), tenant: text('tenant'), url: text('url'), secret: text('secret') },
    events: Array.isArray(record.events) ? record.events.filter(isWebhookEventType) : [],
    enabled: record.enabled === true,
    createdAt: date(record.createdAt) ?? new Date(0),
    ...defined({ disabledAt: date(record.disabledAt) }),
    health,
  };
}

const PLACEHOLDER: WebhookSubscription = {
  ...{ id: '', tenant: '', url: '', secret: '', events: [], enabled: false },
  createdAt: new Date(0),
  health: { failures: 0 },
};

/** The fields a patch names, as toRecord writes them (undefined: gone); the rest stay as stored. */
export function patchEntries(patch: SubscriptionPatch): [string, unknown][] {
  const record = toRecord(applyPatch(PLACEHOLDER, patch));
  return Object.keys(patch).map((field) => [field, record[field]]);
}

/** Oldest first, then by id: how subscriptions and tokens are listed. */
export const byCreation = (a: Created, b: Created): number =>
  a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id);

/** A delivery as the Redis and embedded outboxes record it (`at`: epoch ms, as a number or text). */
export interface DeliveryRecord {
  sub: string;
  event: string;
  type: string;
  body: string;
  at: number | string;
  attempts: number;
}

/** The delivery the outbox port hands out; undefined for an event type this version does not know. */
export function toPendingDelivery(
  tenant: string,
  key: string,
  { sub: subscriptionId, event: eventId, type, body, attempts, at }: DeliveryRecord,
): PendingDelivery | undefined {
  if (!isWebhookEventType(type)) return undefined;
  const delivery = { key, tenant, subscriptionId, eventId, type, body };
  return { ...delivery, attempts: Number(attempts), createdAt: new Date(Number(at)) };
}
