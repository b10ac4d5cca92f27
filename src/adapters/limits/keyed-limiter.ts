import {
  RateLimiterMemory,
  RateLimiterMongo,
  RateLimiterRedis,
  RateLimiterRes,
  RLWrapperTimeouts,
} from 'rate-limiter-flexible';
import { FerretDbLimiter } from './ferretdb-limiter.js';
import { MONGO_LIMITS_COLLECTION, type LimiterStore } from './limiter-store.js';
import { RateLimiterLmdb } from './rate-limiter-lmdb.js';

/** A MongoDB that has not answered a decision within this is treated as down for it. */
const MONGO_DEADLINE_MS = 500;
/** Keys refused at once are swept of expired entries past this many (each lasts one window). */
const SWEEP_AT = 10_000;

/**
 * Told of each decision made in process because the store did not answer (`first`: the first
 * since it last did), and when it answers again.
 */
export interface LimiterWatch {
  fallback(limit: string, first: boolean): void;
  recovered(limit: string): void;
}

export interface KeyedLimiterOptions {
  /** What the limit counts, in its keys, log lines and metrics: `tenant`, `auth_failures`. */
  name: string;
  /** Units a key may use a second. */
  points: number;
  /** Where to count (default, and until a promised store resolves: in process). */
  store?: LimiterStore | Promise<LimiterStore> | undefined;
  watch?: LimiterWatch | undefined;
}

/**
 * `points` units a second per key (rate-limiter-flexible, one-second windows), counted on the
 * storage's Redis (Cluster too: a command touches one key), MongoDB or LMDB when it lends its
 * connection, so that its processes share one count; else in process. A store that fails or is
 * late hands the decision to an in-process limiter, which the watch hears of. Memory stays
 * bounded: every key's count and refusal lasts one window.
 */
export class KeyedLimiter {
  readonly points: number;
  private limiter: Pick<RateLimiterMemory, 'consume' | 'get'>;
  // Keys refused until a time, in ms: a refused key costs no round trip until its window ends.
  // inMemoryBlockOnConsumed would not cover RateLimiterMemory nor the insurance's decisions.
  private readonly refused = new Map<string, number>();
  private fallbacks = 0;
  private degraded = false;

  constructor(private readonly options: KeyedLimiterOptions) {
    const { name, points, store } = options;
    this.points = points;
    const windows = { points, duration: 1, keyPrefix: name };
    this.limiter = new RateLimiterMemory(windows);
    const use = (opened: LimiterStore) => {
      if (opened.kind !== 'memory') this.limiter = this.shared(opened, windows);
    };
    // A storage that never opens leaves the limits in process, as the memory storage has them.
    if (store instanceof Promise) store.then(use, () => {});
    else if (store !== undefined) use(store);
  }

  /** The ms `key` is refused for, from what this process knows without asking (0: not refused). */
  refusedFor(key: string): number {
    const until = this.refused.get(key);
    if (until === undefined) return 0;
    const left = until - Date.now();
    if (left > 0) return left;
    this.refused.delete(key);
    return 0;
  }

  /** Counts one unit against `key`; resolves 0 when it was within the limit, else the ms to wait. */
  consume(key: string): Promise<number> {
    const local = this.refusedFor(key);
    if (local > 0) return Promise.resolve(local);
    return this.decide(this.limiter.consume(key)).then((res) => {
      // The unit that reaches the limit is the last one admitted: refuse the next ones here.
      if (res.consumedPoints >= this.points) {
        if (this.refused.size >= SWEEP_AT) {
          const now = Date.now();
          for (const [k, until] of this.refused) if (until <= now) this.refused.delete(k);
        }
        this.refused.set(key, Date.now() + Math.max(res.msBeforeNext, 1));
      }
      return res.consumedPoints > this.points ? wait(res) : 0;
    });
  }

  /** Resolves 0 when `key` has a unit left, else the ms to wait; uses nothing up. */
  peek(key: string): Promise<number> {
    const local = this.refusedFor(key);
    if (local > 0) return Promise.resolve(local);
    return this.decide(this.limiter.get(key)).then((res) =>
      res !== null && res.consumedPoints >= this.points ? wait(res) : 0,
    );
  }

  /** Settles one decision; a refusal (a RateLimiterRes the library rejects with) is a result too. */
  private decide<T extends RateLimiterRes | null>(decision: Promise<T>): Promise<T> {
    const before = this.fallbacks;
    const settled = (res: T): T => {
      if (this.degraded && this.fallbacks === before) {
        this.degraded = false;
        this.options.watch?.recovered(this.options.name);
      }
      return res;
    };
    return decision.then(settled, (error: unknown) => {
      if (!(error instanceof RateLimiterRes)) throw error;
      return settled(error as T);
    });
  }

  private shared(
    store: Exclude<LimiterStore, { kind: 'memory' }>,
    options: { points: number; duration: number; keyPrefix: string },
  ) {
    const { name, watch } = this.options;
    // The library's insurance: a memory limiter that decides while the store does not answer.
    const insuranceLimiter = new RateLimiterMemory(options);
    for (const method of ['consume', 'get'] as const) {
      const decide = insuranceLimiter[method];
      insuranceLimiter[method] = (...args: unknown[]): never => {
        this.fallbacks++;
        watch?.fallback(name, !this.degraded);
        this.degraded = true;
        return Reflect.apply(decide, insuranceLimiter, args) as never;
      };
    }
    if (store.kind === 'redis') {
      // No deadline of its own: the storage's client bounds every command (1.5 s, redis-client.ts),
      // and one that is not connected hands the decision over at once. A timer a decision more
      // would cost the success path some 2 µs (bench/README.md).
      return new RateLimiterRedis({
        ...options,
        keyPrefix: `${store.prefix}limit:${name}`,
        storeClient: store.client,
        rejectIfRedisNotReady: true,
        insuranceLimiter,
      });
    }
    if (store.kind === 'lmdb') {
      // On this machine's disk: a failed commit (a full disk) hands the decision over at once.
      return new RateLimiterLmdb({ ...options, counts: store.counts, insuranceLimiter });
    }
    const limiter = store.ferretdb
      ? new FerretDbLimiter(store.client, store.database, options)
      : new RateLimiterMongo({
          ...options,
          storeClient: store.client,
          dbName: store.database,
          tableName: MONGO_LIMITS_COLLECTION,
          // The storage made the indexes when it opened, with its start-up deadlines and errors.
          disableIndexesCreation: true,
        });
    // The driver waits up to its socket timeout (2 s) for a server that stopped answering.
    return new RLWrapperTimeouts({ limiter, timeoutMs: MONGO_DEADLINE_MS, insuranceLimiter });
  }
}

/** The ms before another unit, at least one (a window ending now is still this one). */
const wait = (res: RateLimiterRes): number => Math.max(1, res.msBeforeNext);
