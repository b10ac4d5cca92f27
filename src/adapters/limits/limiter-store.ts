import type { Cluster, Redis } from 'ioredis';
import type { MongoClient } from 'mongodb';
import type { Storage } from '../../ports/storage.js';

/**
 * Where the keyed limiters count: in this process, or on the connection the storage opened
 * (Redis or Redis Cluster, MongoDB, the embedded store's directory), so that every process on that store enforces one limit.
 */
export type LimiterStore =
  | { readonly kind: 'memory' }
  /** Keys go under `prefix`, the storage's own. */
  | { readonly kind: 'redis'; readonly client: Redis | Cluster; readonly prefix: string }
  /**
   * Counts go to the collection `limits` of `database` (indexed when the storage opened it), one
   * document per unit used on FerretDB (`ferretdb`), whose updates are not atomic.
   */
  | {
      readonly kind: 'mongodb';
      readonly client: MongoClient;
      readonly database: string;
      readonly ferretdb?: boolean;
    }
  /** Counts go to an LMDB environment of their own that every process on the data directory opens. */
  | { readonly kind: 'lmdb'; readonly counts: CountsDatabase };

/**
 * What the limits use of the lmdb-js database they count in (its root database fits); written
 * here so that the package's declarations never load lmdb-js's own, which strict consumers refuse.
 */
export interface CountsDatabase {
  get(key: string): unknown;
  put(key: string, value: unknown): unknown;
  remove(key: string): unknown;
  doesExist(key: string): boolean;
  transaction<T>(action: () => T): Promise<T>;
  getRange(): Iterable<{ key: unknown; value: unknown }>;
  close(): Promise<void>;
}

/** Limits in this process: the memory storage's, and any storage that lends no connection. */
export const IN_PROCESS: LimiterStore = { kind: 'memory' };

/** A storage as its technology opened it: with the connection it lends the limiters, if any. */
export type OpenedStorage = Storage & { readonly limiterStore?: LimiterStore };

/** The collection of the MongoDB limiters' counts. */
export const MONGO_LIMITS_COLLECTION = 'limits';
