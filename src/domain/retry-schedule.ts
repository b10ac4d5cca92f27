/**
 * Retries `delaysMs[n]` after the (n+1)th failure, the last repeating, each spread by ±`jitter` so
 * a recovered receiver is not hit at once; failing for `disableAfterMs` disables a subscription.
 */
export interface RetrySchedule {
  readonly delaysMs: readonly number[];
  readonly jitter: number;
  readonly disableAfterMs: number;
}

const HOUR = 3_600_000;

/** Standard Webhooks' suggested schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; disabled after 5 days. */
export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = {
  delaysMs: [5_000, 300_000, HOUR / 2, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR],
  jitter: 0.2,
  disableAfterMs: 5 * 24 * HOUR,
};

/** The wait before the next attempt, after `failures` failed attempts (1 or more). */
export function retryDelay(schedule: RetrySchedule, failures: number, random = Math.random) {
  const { delaysMs } = schedule;
  const base = delaysMs[Math.min(Math.max(failures, 1), delaysMs.length) - 1] ?? 0;
  return Math.max(0, Math.round(base * (1 + schedule.jitter * (2 * random() - 1))));
}

/** Whether a subscription failing since `failingSince` has failed for the whole disable period at `now`. */
export const failedTooLong = (schedule: RetrySchedule, failingSince: Date, now: Date): boolean =>
  now.getTime() - failingSince.getTime() >= schedule.disableAfterMs;
