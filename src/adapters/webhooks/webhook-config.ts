import { dirname, join } from 'node:path';
import { DEFAULT_RETRY_SCHEDULE, type RetrySchedule } from '../../domain/retry-schedule.js';
import { ConfigError } from '../config/config-error.js';

/** How this instance delivers webhooks; every field has a default (see docs/webhooks.md). */
export interface WebhookConfig {
  schedule: RetrySchedule;
  /** Per attempt: connecting, sending and the receiver's answer. */
  timeoutMs: number;
  /** Allows http: URLs and loopback, private and link-local addresses (tests, private networks). */
  allowPrivate: boolean;
  /** How often the outbox is searched for due deliveries (the store's own creates wake it at once). */
  pollMs: number;
  /** How long a claimed delivery stays hidden from other instances. */
  leaseMs: number;
  /** Deliveries in flight in this process, all tenants together. */
  concurrency: number;
  /** Deliveries in flight in this process for one tenant: a slow receiver holds no more. */
  tenantConcurrency: number;
  /** How long a process trusts its copy of the subscriptions (memory and MongoDB). */
  cacheMs: number;
  /**
   * Whether this process delivers (it always records). False leaves delivery to other instances
   * on the same Redis or MongoDB, so that serving creates does not pay for sending them.
   */
  deliver: boolean;
  /** With the memory storage: the subscriptions file and the outbox file. */
  file: string;
  outboxFile: string;
}

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Reads `250ms`, `5s`, `30m`, `2h`, `5d`; throws a ConfigError naming the variable otherwise. */
export function parseDuration(name: string, text: string): number {
  const match = /^([0-9]{1,9})(ms|s|m|h|d)$/.exec(text.trim());
  if (match === null) {
    throw new ConfigError(
      `${name} must be a duration such as 250ms, 5s, 30m, 2h or 5d (got "${text}")`,
    );
  }
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

function duration(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 1): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const ms = parseDuration(name, text);
  if (ms < min) throw new ConfigError(`${name} must be at least ${min} ms (got "${text}")`);
  return ms;
}

function count(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  if (!/^[1-9][0-9]{0,5}$/.test(text)) {
    throw new ConfigError(`${name} must be a whole number from 1 to 999999 (got "${text}")`);
  }
  return Number(text);
}

function schedule(env: NodeJS.ProcessEnv): RetrySchedule {
  const name = 'PLANT_STORE_WEBHOOK_RETRY_SCHEDULE';
  const text = env[name] ?? '';
  const delaysMs =
    text === ''
      ? DEFAULT_RETRY_SCHEDULE.delaysMs
      : text.split(',').map((part) => parseDuration(name, part));
  return {
    delaysMs,
    jitter: DEFAULT_RETRY_SCHEDULE.jitter,
    disableAfterMs: duration(
      env,
      'PLANT_STORE_WEBHOOK_DISABLE_AFTER',
      DEFAULT_RETRY_SCHEDULE.disableAfterMs,
    ),
  };
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback = false): boolean {
  const text = env[name] ?? '';
  if (text === '') return fallback;
  if (text === 'false') return false;
  if (text === 'true') return true;
  throw new ConfigError(`${name} must be true or false (got "${text}")`);
}

/** Reads the PLANT_STORE_WEBHOOK_* variables; files default to beside the token file. */
export function loadWebhookConfig(env: NodeJS.ProcessEnv, tokenFile: string): WebhookConfig {
  const dir = dirname(tokenFile);
  return {
    schedule: schedule(env),
    timeoutMs: duration(env, 'PLANT_STORE_WEBHOOK_TIMEOUT', 10_000),
    allowPrivate: flag(env, 'PLANT_STORE_WEBHOOK_ALLOW_PRIVATE'),
    pollMs: duration(env, 'PLANT_STORE_WEBHOOK_POLL', 1_000, 10),
    leaseMs: duration(env, 'PLANT_STORE_WEBHOOK_LEASE', 60_000, 10),
    concurrency: count(env, 'PLANT_STORE_WEBHOOK_CONCURRENCY', 64),
    tenantConcurrency: count(env, 'PLANT_STORE_WEBHOOK_TENANT_CONCURRENCY', 8),
    cacheMs: duration(env, 'PLANT_STORE_WEBHOOK_CACHE', 1_000),
    deliver: flag(env, 'PLANT_STORE_WEBHOOK_DELIVER', true),
    file: env.PLANT_STORE_WEBHOOK_FILE || join(dir, 'webhooks.json'),
    outboxFile: env.PLANT_STORE_WEBHOOK_OUTBOX_FILE || join(dir, 'webhook-outbox.jsonl'),
  };
}

/** The defaults, for embedders and tests. */
export const defaultWebhookConfig = (overrides: Partial<WebhookConfig> = {}): WebhookConfig => ({
  ...loadWebhookConfig({}, '.plant-store/tokens.json'),
  ...overrides,
});
