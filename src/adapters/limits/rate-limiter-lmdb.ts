import { createRequire } from 'node:module';
import {
  RateLimiterRes,
  type IRateLimiterStoreOptions,
  type RateLimiterStoreAbstract as StoreAbstract,
} from 'rate-limiter-flexible';
import type { CountsDatabase } from './limiter-store.js';

// The base of the library's store limiters: typed, but not exported by its index.
const RateLimiterStoreAbstract = createRequire(import.meta.url)(
  'rate-limiter-flexible/lib/RateLimiterStoreAbstract.js',
) as typeof StoreAbstract;

/** One key's count: points used in its window, which ends at `expire` (epoch ms; 0: never). */
type Count = { points: number; expire: number };

const live = (count: Count | undefined, now: number): count is Count =>
  count !== undefined && (count.expire === 0 || count.expire > now);

/** A failed commit's cause, handled (unhandled, it would end the process); the insurance decides. */
const handled = (error: unknown): never => {
  void (error as { commitError?: Promise<unknown> } | undefined)?.commitError?.catch(() => {});
  throw error;
};

/**
 * rate-limiter-flexible's store limiter on an LMDB environment: each count is read and written in
 * one write transaction, which LMDB holds for every process on it, so that the processes of one
 * machine count together. Opened without flushing: counts last one window.
 */
export class RateLimiterLmdb extends RateLimiterStoreAbstract {
  private readonly counts: CountsDatabase;

  constructor(options: Omit<IRateLimiterStoreOptions, 'storeClient'> & { counts: CountsDatabase }) {
    const { counts, ...rest } = options;
    super({ ...rest, storeClient: counts });
    this.counts = counts;
  }

  _upsert(key: string, points: number, msDuration: number, forceExpire = false): Promise<Count> {
    return this.counts
      .transaction(() => {
        const now = Date.now();
        const held = this.counts.get(key) as Count | undefined;
        const next =
          !forceExpire && live(held, now)
            ? { points: held.points + points, expire: held.expire }
            : { points, expire: msDuration > 0 ? now + msDuration : 0 };
        void this.counts.put(key, next);
        return next;
      })
      .catch(handled);
  }

  _get(key: string): Promise<Count | null> {
    const held = this.counts.get(key) as Count | undefined;
    return Promise.resolve(live(held, Date.now()) ? held : null);
  }

  _delete(key: string): Promise<boolean> {
    return this.counts
      .transaction(() => {
        if (!this.counts.doesExist(key)) return false;
        void this.counts.remove(key);
        return true;
      })
      .catch(handled);
  }

  _getRateLimiterRes(_key: string, changedPoints: number, result: Count): RateLimiterRes {
    return new RateLimiterRes(
      Math.max(this.points - result.points, 0),
      result.expire === 0 ? -1 : Math.max(result.expire - Date.now(), 0),
      result.points,
      changedPoints === result.points,
    );
  }
}

/** Removes the counts whose window ended; resolves how many. */
export function sweepCounts(counts: CountsDatabase, now = Date.now()): Promise<number> {
  return counts
    .transaction(() => {
      const ended = [...counts.getRange()].filter(({ value }) => !live(value as Count, now));
      for (const { key } of ended) void counts.remove(key as string);
      return ended.length;
    })
    .catch(handled);
}
