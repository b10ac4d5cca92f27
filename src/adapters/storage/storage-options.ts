import type { Logger } from '../../ports/logger.js';
import type { OutageReporters } from './outage-reporter.js';

/**
 * Where plants and managed tokens live: one technology. `maxPlantsPerTenant` 0: no quota; memory
 * refuses creates once the heap passes `heapLimitPercent` of what V8 can hold (85).
 */
export type StorageOptions = { maxPlantsPerTenant?: number } & (
  | { kind: 'memory'; heapLimitPercent?: number }
  /** `prefix` goes before every Redis key (the store's default when absent). */
  | { kind: 'redis'; url: string; prefix?: string }
  | { kind: 'mongodb'; url: string }
  /**
   * The embedded store (LMDB) in `dataDir`, answering a write once on disk (`flush`) or once
   * committed (`commit-only`: a power cut or OS crash may lose the last answered writes).
   */
  | { kind: 'lmdb'; dataDir: string; durability?: 'flush' | 'commit-only' }
);

export type StorageKind = StorageOptions['kind'];
export type StorageOptionsOf<K extends StorageKind> = Extract<StorageOptions, { kind: K }>;

/** What a technology may use besides its options. */
export interface StorageDeps {
  logger?: Logger;
  /** How long opening may wait for a server that is not up yet */
  startupTimeoutMs?: number;
  /** Stops a start-up that still waits (the service is stopping) */
  signal?: AbortSignal;
  /** Told of losing and regaining the server (absent: reporters that log) */
  outages?: OutageReporters;
  /** Where a line for the operator goes (the stock LMDB addon's warning); absent: the logger's warn. */
  notice?: (line: string) => void;
  /**
   * Told when the lock file is deleted, replaced or cut short while open (the next access may end
   * the process with a signal); the executables exit; absent, it is logged and the host decides.
   */
  onLockLost?: (line: string) => void;
}
