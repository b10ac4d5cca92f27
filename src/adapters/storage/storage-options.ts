import type { Logger } from '../../ports/logger.js';
import type { OutageReporters } from './outage-reporter.js';

/** Where plants and managed tokens live: one technology. */
export type StorageOptions = {
  /** Plants one tenant may hold; 0 for no quota (default 1,000,000). */
  maxPlantsPerTenant?: number;
} & (
  | {
      kind: 'memory';
      /** Creates are refused once the plants' heap passes this percent of what V8 can hold (default 85). */
      heapLimitPercent?: number;
    }
  /** `prefix` goes before every Redis key (the store's default when absent). */
  | { kind: 'redis'; url: string; prefix?: string }
  | { kind: 'mongodb'; url: string }
  /**
   * The embedded store (LMDB) in `dataDir`. It answers a write once its commit is on disk
   * (`flush`, the default), or once committed and visible to every process (`commit-only`), its
   * flush following: a power cut or an OS crash may then lose the last answered writes.
   */
  | { kind: 'lmdb'; dataDir: string; durability?: 'flush' | 'commit-only' }
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
  /** Where a line for the operator goes (the stock LMDB addon's warning); absent: the logger's warn. */
  notice?: (line: string) => void;
  /**
   * Told when the store's lock file can no longer be used while it is open (deleted, replaced,
   * cut short: the next access may end the process with a signal). The executables end the
   * process; absent, the line is logged as an error and the host decides.
   */
  onLockLost?: (line: string) => void;
}
