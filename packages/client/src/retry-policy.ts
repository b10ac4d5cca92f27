/** How the client retries the answers that say "not now": 429 (rate limit) and 503 (storage). */
export interface RetryOptions {
  /** Retries after the first attempt; default 2, at most 10. */
  retries?: number;
  /** First backoff when the answer names no Retry-After; it doubles each retry. Default 200 ms. */
  baseDelayMs?: number;
  /** The longest wait; an answer asking for more (Retry-After) is not retried. Default 5000 ms. */
  maxDelayMs?: number;
}

export type RetryPolicy = Required<RetryOptions>;

export const RETRYABLE_STATUSES: readonly number[] = [429, 503];
const MAX_RETRIES = 10;

function count(name: string, value: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isSafeInteger(value) || value < 0 || value > max) {
    throw new RangeError(`retry.${name} must be a whole number from 0 to ${max}, got ${value}`);
  }
  return value;
}

/** The policy with defaults filled in; `false` turns retries off. */
export function retryPolicy(options: RetryOptions | false | undefined): RetryPolicy {
  if (options === false) return { retries: 0, baseDelayMs: 0, maxDelayMs: 0 };
  const { retries = 2, baseDelayMs = 200, maxDelayMs = 5000 } = options ?? {};
  return {
    retries: count('retries', retries, MAX_RETRIES),
    baseDelayMs: count('baseDelayMs', baseDelayMs),
    maxDelayMs: count('maxDelayMs', maxDelayMs),
  };
}

/** Retry-After (delta-seconds or an HTTP-date) in milliseconds; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^[0-9]+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The wait before retry number `retry` (1-based): what Retry-After asks, else exponential backoff
 * with jitter (so that clients refused together do not come back together). Undefined: do not
 * retry (retries used up, or the server asks for a longer wait than the policy allows).
 */
export function retryDelay(
  policy: RetryPolicy,
  retry: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number | undefined {
  if (retry > policy.retries) return undefined;
  if (retryAfterMs !== undefined)
    return retryAfterMs <= policy.maxDelayMs ? retryAfterMs : undefined;
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.round(backoff / 2 + (random() * backoff) / 2);
}
