import { DEFAULT_RETRY_SCHEDULE, type RetrySchedule } from '../domain/retry-schedule.js';
import { ConfigError } from '../adapters/config-error.js';
import {
  DEFAULT_WEBHOOK_CONFIG as DEFAULTS,
  type WebhookConfig,
} from '../adapters/webhooks/webhook-config.js';

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

/** Reads the PLANT_STORE_WEBHOOK_* variables. */
export function loadWebhookConfig(env: NodeJS.ProcessEnv): WebhookConfig {
  return {
    schedule: schedule(env),
    timeoutMs: duration(env, 'PLANT_STORE_WEBHOOK_TIMEOUT', DEFAULTS.timeoutMs),
    allowPrivate: flag(env, 'PLANT_STORE_WEBHOOK_ALLOW_PRIVATE'),
    pollMs: duration(env, 'PLANT_STORE_WEBHOOK_POLL', DEFAULTS.pollMs, 10),
    leaseMs: duration(env, 'PLANT_STORE_WEBHOOK_LEASE', DEFAULTS.leaseMs, 10),
    concurrency: count(env, 'PLANT_STORE_WEBHOOK_CONCURRENCY', DEFAULTS.concurrency),
    tenantConcurrency: count(
      env,
      'PLANT_STORE_WEBHOOK_TENANT_CONCURRENCY',
      DEFAULTS.tenantConcurrency,
    ),
    tenantBacklog: count(env, 'PLANT_STORE_WEBHOOK_TENANT_BACKLOG', DEFAULTS.tenantBacklog),
    cacheMs: duration(env, 'PLANT_STORE_WEBHOOK_CACHE', DEFAULTS.cacheMs),
    deliver: flag(env, 'PLANT_STORE_WEBHOOK_DELIVER', true),
  };
}
