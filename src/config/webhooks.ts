import { DEFAULT_RETRY_SCHEDULE } from '../domain/retry-schedule.js';
import { ConfigError } from '../adapters/config-error.js';
import {
  DEFAULT_WEBHOOK_CONFIG as DEFAULTS,
  type WebhookConfig,
} from '../adapters/webhooks/webhook-config.js';
import { parseInteger, UNIT_MS } from './parse.js';

/** Reads `250ms`, `5s`, `30m`, `2h`, `5d`; throws a ConfigError naming the variable otherwise. */
function parseDuration(name: string, text: string): number {
  const match = /^([0-9]{1,9})(ms|s|m|h|d)$/.exec(text.trim());
  if (match === null) {
    throw new ConfigError(
      `${name} must be a duration such as 250ms, 5s, 30m, 2h or 5d (got "${text}")`,
    );
  }
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/** Reads the PLANT_STORE_WEBHOOK_* variables. */
export function loadWebhookConfig(env: NodeJS.ProcessEnv): WebhookConfig {
  const text = (name: string): string => env[name] ?? '';
  const duration = (name: string, fallback: number, min = 1): number => {
    if (text(name) === '') return fallback;
    const ms = parseDuration(name, text(name));
    if (ms < min) {
      throw new ConfigError(`${name} must be at least ${min} ms (got "${text(name)}")`);
    }
    return ms;
  };
  const count = (name: string, fallback: number): number =>
    parseInteger(env, name, fallback, 1, 999_999);
  const flag = (name: string, fallback: boolean): boolean => {
    if (text(name) === '') return fallback;
    if (text(name) !== 'true' && text(name) !== 'false') {
      throw new ConfigError(`${name} must be true or false (got "${text(name)}")`);
    }
    return text(name) === 'true';
  };
  const schedule = text('PLANT_STORE_WEBHOOK_RETRY_SCHEDULE');
  return {
    schedule: {
      ...DEFAULT_RETRY_SCHEDULE,
      ...(schedule !== '' && {
        delaysMs: schedule
          .split(',')
          .map((part) => parseDuration('PLANT_STORE_WEBHOOK_RETRY_SCHEDULE', part)),
      }),
      disableAfterMs: duration(
        'PLANT_STORE_WEBHOOK_DISABLE_AFTER',
        DEFAULT_RETRY_SCHEDULE.disableAfterMs,
      ),
    },
    timeoutMs: duration('PLANT_STORE_WEBHOOK_TIMEOUT', DEFAULTS.timeoutMs),
    allowPrivate: flag('PLANT_STORE_WEBHOOK_ALLOW_PRIVATE', false),
    pollMs: duration('PLANT_STORE_WEBHOOK_POLL', DEFAULTS.pollMs, 10),
    leaseMs: duration('PLANT_STORE_WEBHOOK_LEASE', DEFAULTS.leaseMs, 10),
    concurrency: count('PLANT_STORE_WEBHOOK_CONCURRENCY', DEFAULTS.concurrency),
    tenantConcurrency: count('PLANT_STORE_WEBHOOK_TENANT_CONCURRENCY', DEFAULTS.tenantConcurrency),
    tenantBacklog: count('PLANT_STORE_WEBHOOK_TENANT_BACKLOG', DEFAULTS.tenantBacklog),
    cacheMs: duration('PLANT_STORE_WEBHOOK_CACHE', DEFAULTS.cacheMs),
    deliver: flag('PLANT_STORE_WEBHOOK_DELIVER', true),
  };
}
