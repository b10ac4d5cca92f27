import { setTimeout as sleep } from 'node:timers/promises';
import type { RootDatabase } from 'lmdb';
import { PlantError } from '../../../domain/errors.js';
import type { Logger } from '../../../ports/logger.js';
import { OPERATION_DEADLINE_MS } from '../deadline.js';
import { lockHolder, lowOnSpace } from './lmdb-data-file.js';

/** LMDB's and the system's codes for "no room": the disk, the map, the file size limit, a quota. */
const NO_ROOM = new Set([28, -30792, 27, 122]); // ENOSPC, MDB_MAP_FULL, EFBIG, EDQUOT
const NO_ROOM_TEXT = /MDB_MAP_FULL|No space left|ENOSPC|File too large|quota/i;
// The system's codes for a file system that takes no writes: read-only, or not permitted.
const READ_ONLY = new Set([30, 1, 13]); // EROFS, EPERM, EACCES
// LMDB reports a short write as EIO: on a nearly full file system (lowOnSpace), that is no room.
const EIO = 5;

export const refusesWrites = (): PlantError =>
  new PlantError(
    'storage-refuses-writes',
    'storage takes no writes now (out of disk, or read-only); nothing was written',
  );

// Runs each callback in LMDB's one write transaction of every process, so what it reads holds
// until it commits; lmdb-js commits the callbacks queued meanwhile together: a callback must throw
// before its first write, never after.
export class LmdbWriter {
  private pending = 0;
  private paused: Promise<void> | undefined;
  private lastHolderLine = 0;

  constructor(
    private readonly root: RootDatabase,
    /** dataDir: its free space tells a full disk from a failing one; lockFile: who holds the lock. */
    private readonly options: {
      dataDir?: string;
      lockFile?: string;
      logger?: Logger | undefined;
    } = {},
  ) {}

  // Resolves once its own commit is flushed (no overlappingSync), not at lmdb-js's `flushed`, which
  // follows the batch queued last. Past the deadline the write is still queued: it may be done.
  write<T>(callback: () => T): Promise<T> {
    const run = (): Promise<T> => {
      this.pending++;
      const done = this.root.transaction(callback).finally(() => this.pending--);
      return done.catch(async (error: unknown) => {
        throw await translate(error, this.options.dataDir);
      });
    };
    const work = this.paused === undefined ? run() : this.paused.then(run);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.sayWhoHoldsTheLock();
        reject(
          new PlantError(
            'storage-unavailable',
            'storage did not answer in time; the write may still be done (a retried create answered 409 was written)',
          ),
        );
      }, OPERATION_DEADLINE_MS);
      work.then(
        (value) => (clearTimeout(timer), resolve(value)),
        (error: unknown) => (clearTimeout(timer), reject(error as Error)),
      );
    });
  }

  // Holds new writes until `resume`, once those begun settled (at most the deadline: one waiting
  // on another process's lock does not hold it).
  async pause(): Promise<() => void> {
    let resume!: () => void;
    this.paused = new Promise<void>((resolve) => (resume = resolve));
    const until = Date.now() + OPERATION_DEADLINE_MS;
    while (this.pending > 0 && Date.now() < until) await sleep(10);
    return () => void ((this.paused = undefined), resume());
  }

  /** One line a minute at most: a write waits on LMDB's write lock; who holds it, when LMDB says. */
  private sayWhoHoldsTheLock(): void {
    const { lockFile: lock, logger } = this.options;
    const now = Date.now();
    if (lock === undefined || logger === undefined || now - this.lastHolderLine < 60_000) return;
    this.lastHolderLine = now;
    const holder = lockHolder(lock);
    logger.warn(
      { lock, holder },
      holder === undefined
        ? `a write waited ${OPERATION_DEADLINE_MS} ms: LMDB's write lock (${lock}) is held by no process it names, or the disk is slow`
        : `a write waited ${OPERATION_DEADLINE_MS} ms on LMDB's write lock (${lock}), held by pid ${holder.pid} (${holder.command})`,
    );
  }
}

// A failed commit rejects its batch's writes with one error whose `commitError` rejects with the
// cause (ENOSPC): handled here (unhandled, it ends the process), as a domain error.
async function translate(error: unknown, dataDir?: string): Promise<unknown> {
  if (error instanceof PlantError) return error;
  const commitError = (error as { commitError?: Promise<unknown> } | undefined)?.commitError;
  const cause = commitError
    ? await commitError.then(() => error).catch((found: unknown) => found)
    : error;
  const code = (cause as { code?: unknown } | undefined)?.code;
  if (typeof code === 'number' && (NO_ROOM.has(code) || READ_ONLY.has(code)))
    return refusesWrites();
  if (cause instanceof Error && NO_ROOM_TEXT.test(cause.message)) return refusesWrites();
  if (code === EIO && dataDir !== undefined && lowOnSpace(dataDir)) return refusesWrites();
  // An error of LMDB or the system (a number code), rather than of this code.
  if (commitError !== undefined || typeof code === 'number') {
    return new PlantError('storage-unavailable', 'storage is unavailable');
  }
  return error;
}

const writers = new Set<LmdbWriter>();
let stopping = false;

// Ctrl-Z (SIGTSTP) stopped a process at once, maybe holding the write lock every process waits
// for: instead, new writes are held, those begun settle, then it stops itself (SIGSTOP).
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  try {
    const resumes = await Promise.all([...writers].map((writer) => writer.pause()));
    process.kill(process.pid, 'SIGSTOP');
    for (const resume of resumes) resume();
  } finally {
    stopping = false;
  }
}

const onStop = (): void => void stop();

/** Makes job control stop this process only between `writer`'s writes; returns the undoing. */
export function stopsWithoutTheLock(writer: LmdbWriter): () => void {
  if (writers.size === 0) process.on('SIGTSTP', onStop);
  writers.add(writer);
  return () => {
    writers.delete(writer);
    if (writers.size === 0) process.off('SIGTSTP', onStop);
  };
}
