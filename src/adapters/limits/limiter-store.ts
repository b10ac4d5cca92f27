import type { Cluster, Redis } from 'ioredis';
import type { MongoClient } from 'mongodb';
import type { Storage } from '../../ports/storage.js';

/** Where the keyed limiters count: in this process, or on the connection the storage lends. */
export type LimiterStore =
  | { readonly kind: 'memory' }
  /** Keys go under `prefix`, the storage's own. */
  | { readonly kind: 'redis'; readonly client: Redis | Cluster; readonly prefix: string }
  /** Counts go to `database`'s `limits` (indexed by the storage); on FerretDB a unit a document. */
  | {
      readonly kind: 'mongodb';
      readonly client: MongoClient;
      readonly database: string;
      readonly ferretdb?: boolean;
    }
  /** Counts go to an LMDB environment of their own, which every process on the directory opens. */
  | { readonly kind: 'lmdb'; readonly counts: CountsDatabase };

/** What the limits use of lmdb-js (here, so that our declarations never load its own, which strict consumers refuse). */
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
