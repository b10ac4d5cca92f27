import type { Logger } from '../../ports/logger.js';
import type { OutageReporters } from './outage-reporter.js';

/** What every store enforces; absent values take the stores' documented defaults. */
export interface StorageLimits {
  /** Plants one tenant may hold; 0 for no quota (default 1,000,000). */
  maxPlantsPerTenant?: number;
}

/** Where plants and managed tokens live: one technology. */
export type StorageOptions = StorageLimits &
  (
    | {
        kind: 'memory';
        /** Creates are refused once the plants' heap passes this percent of what V8 can hold (default 85). */
        heapLimitPercent?: number;
      }
    /** `prefix` goes before every Redis key (the store's default when absent). */
    | { kind: 'redis'; url: string; prefix?: string }
    | { kind: 'mongodb'; url: string }
  );

export type StorageKind = StorageOptions['kind'];
/** The options of one technology. */
export type StorageOptionsOf<K extends StorageKind> = Extract<StorageOptions, { kind: K }>;

/** What a technology may use besides its options. */
export interface StorageDeps {
  logger?: Logger;
  /** How long opening may wait for a server that is not up yet. */
  startupTimeoutMs?: number;
  /** Aborting it stops a start-up that still waits (the service is stopping). */
  signal?: AbortSignal;
  /** Where the technology reports losing and regaining its server (absent: reporters that log). */
  outages?: OutageReporters;
}
