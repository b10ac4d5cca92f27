import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../ports/logger.js';
import { StorageOpenError } from './storage-open-error.js';

/**
 * A store not open yet but maybe soon (refused, timed out, an index build): waitForStorage tries
 * again. Its message is the reason, the same words for the same cause (each logged once).
 */
export class StorageNotReady extends Error {
  override name = 'StorageNotReady';
}

/**
 * Runs `attempt` until it resolves, retrying with backoff (0.1 s doubling to 2 s) while it rejects
 * with StorageNotReady, up to `timeoutMs` (PLANT_STORE_STARTUP_TIMEOUT); then rejects with a
 * StorageOpenError naming `where` (never credentials), `variable` and the last reason. An attempt
 * gets the bound (epoch ms) and how to tell what it waits for; `signal` aborts the wait.
 */
export async function waitForStorage<T>(
  attempt: (progress: { deadline: number; waiting(reason: string): void }) => Promise<T>,
  options: {
    where: string;
    variable: string;
    timeoutMs: number;
    logger?: Logger | undefined;
    signal?: AbortSignal | undefined;
  },
): Promise<T> {
  const { where, variable, timeoutMs, logger, signal } = options;
  const deadline = Date.now() + timeoutMs;
  const logged = new Set<string>();
  const waiting = (reason: string): void => {
    if (logged.has(reason)) return;
    logged.add(reason);
    const waitsUpToSeconds = Math.ceil(remaining(deadline) / 1000);
    logger?.warn({ storage: where, reason, waitsUpToSeconds }, `waiting for ${where}: ${reason}`);
  };
  for (let delay = 100; ; delay = Math.min(delay * 2, 2000)) {
    signal?.throwIfAborted();
    try {
      return await attempt({ deadline, waiting });
    } catch (error) {
      if (!(error instanceof StorageNotReady)) throw error;
      const left = deadline - Date.now();
      if (left <= 0) {
        const problem = `is not ready after ${timeoutMs / 1000} s (${error.message})`;
        throw new StorageOpenError(where, variable, problem, { cause: error.cause });
      }
      waiting(error.message);
      await sleep(Math.min(delay, left), undefined, signal && { signal });
    }
  }
}

/** What is left of the bound, at least 1 ms (a driver takes 0 as "no limit"). */
export const remaining = (deadline: number): number => Math.max(1, deadline - Date.now());

/** A short reason for a network error's text: the same words for the same cause. */
export function networkReason(message: string): string | undefined {
  if (/ECONNREFUSED/.test(message)) return 'connection refused';
  if (/ENOTFOUND|EAI_AGAIN/.test(message)) return 'host not found';
  if (/EHOSTUNREACH|ENETUNREACH/.test(message)) return 'host unreachable';
  if (/ECONNRESET|EPIPE|closed/i.test(message)) return 'connection closed';
  if (/timed? ?out|ETIMEDOUT/i.test(message)) return 'timed out';
  return undefined;
}
