import type { Cluster, Redis } from 'ioredis';
import type { MongoClient } from 'mongodb';
import type { Storage } from '../../ports/storage.js';

/**
 * Where the keyed limiters count: in this process, or on the connection the storage opened
 * (Redis or Redis Cluster, MongoDB), so that every process on that store enforces one limit.
 */
export type LimiterStore =
  | { readonly kind: 'memory' }
  /** Keys go under `prefix`, the storage's own. */
  | { readonly kind: 'redis'; readonly client: Redis | Cluster; readonly prefix: string }
  /** Counts go to the collection `limits` of `database` (indexed when the storage opened it). */
  | { readonly kind: 'mongodb'; readonly client: MongoClient; readonly database: string };

/** Limits in this process: the memory storage's, and any storage that lends no connection. */
export const IN_PROCESS: LimiterStore = { kind: 'memory' };

/** A storage as its technology opened it: with the connection it lends the limiters, if any. */
export type OpenedStorage = Storage & { readonly limiterStore?: LimiterStore };

/** The collection of the MongoDB limiters' counts. */
export const MONGO_LIMITS_COLLECTION = 'limits';
