import { DEFAULT_RETRY_SCHEDULE, type RetrySchedule } from '../../domain/retry-schedule.js';

/** How this instance delivers webhooks; every field has a default (see docs/webhooks.md). */
export interface WebhookConfig {
  schedule: RetrySchedule;
  /** Per attempt: connecting, sending and the receiver's answer. */
  timeoutMs: number;
  allowPrivate: boolean;
  /** The outbox poll; this process's own creates wake it at once. */
  pollMs: number;
  leaseMs: number;
  /** Deliveries in flight here: in all, and of one tenant (a slow receiver holds no more). */
  concurrency: number;
  tenantConcurrency: number;
  /** Deliveries one tenant may have pending; beyond them its oldest are dropped (logged, counted). */
  tenantBacklog: number;
  /** How long a process trusts its copy of the subscriptions (MongoDB). */
  cacheMs: number;
  /** Whether this process delivers (it always records); false leaves it to others on the store. */
  deliver: boolean;
}

/** The defaults of the PLANT_STORE_WEBHOOK_* variables (docs/webhooks.md). */
export const DEFAULT_WEBHOOK_CONFIG: Readonly<WebhookConfig> = {
  schedule: DEFAULT_RETRY_SCHEDULE,
  timeoutMs: 10_000,
  allowPrivate: false,
  pollMs: 1_000,
  leaseMs: 60_000,
  concurrency: 64,
  tenantConcurrency: 8,
  tenantBacklog: 10_000,
  cacheMs: 1_000,
  deliver: true,
};

export const defaultWebhookConfig = (overrides: Partial<WebhookConfig> = {}): WebhookConfig => ({
  ...DEFAULT_WEBHOOK_CONFIG,
  ...overrides,
});
