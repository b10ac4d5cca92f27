import { statfsSync } from 'node:fs';
import type { RootDatabase } from 'lmdb';
import { PlantError } from '../../../domain/errors.js';
import { withinDeadline } from '../deadline.js';
import type { LmdbDurability } from '../storage-options.js';

/** LMDB's and the system's codes for "no room": the disk, the map, the file size limit, a quota. */
const NO_ROOM = new Set([28, -30792, 27, 122]); // ENOSPC, MDB_MAP_FULL, EFBIG, EDQUOT
const NO_ROOM_TEXT = /MDB_MAP_FULL|No space left|ENOSPC|File too large|quota/i;
// The system's codes for a file system that takes no writes: read-only, or not permitted.
const READ_ONLY = new Set([30, 1, 13]); // EROFS, EPERM, EACCES
// LMDB reports a short write as EIO: on a file system with less free than this, that is no room.
const EIO = 5;
const LOW_SPACE_BYTES = 256 * 1024;

export const refusesWrites = (): PlantError =>
  new PlantError(
    'storage-refuses-writes',
    'storage takes no writes now (out of disk, or read-only); nothing was written',
  );

const unavailable = (): PlantError =>
  new PlantError('storage-unavailable', 'storage is unavailable');

/**
 * Runs write transactions on the environment: each callback runs inside LMDB's one write
 * transaction of the whole environment (a lock across processes), so that what it reads cannot
 * change before what it writes is committed. lmdb-js's writer thread commits every callback
 * queued while it was busy in one transaction, so that concurrent writes share one flush. A
 * callback must throw before its first write, never after (the writes of a batch commit
 * together).
 *
 * Durable writes (`flush`) need the environment opened with LMDB's MDB_NOMETASYNC
 * (lmdb-environment.ts): a commit writes its pages, flushes them (`fdatasync`, under the write
 * lock), then writes its meta page without flushing it, and the lock is free for the next
 * commit, of this process or another. The write is answered once a forced environment sync
 * (`mdb_env_sync(env, 1)`: one more `fdatasync`, outside the lock) has flushed that meta page;
 * every commit resolved in one turn of the event loop shares that sync, and the next commit's
 * own page flush covers it as well. LMDB keeps the two latest snapshots' pages (it reuses only
 * pages freed before the previous transaction), so a crash at any point finds a meta page
 * pointing at flushed pages: at worst the newest commit, not yet answered, is undone.
 */
export class LmdbWriter {
  /** The sync that the commits resolved in this turn of the event loop share (not begun yet). */
  private gathering: Promise<void> | undefined;
  /** Syncs begun or gathering, which closing waits for. */
  private readonly syncing = new Set<Promise<void>>();

  constructor(
    private readonly root: RootDatabase,
    private readonly durability: LmdbDurability = 'flush',
    /** Where the environment lives: its free space tells a full disk from a failing one. */
    private readonly dataDir?: string,
  ) {}

  /**
   * Runs `callback` in a write transaction; resolves its result once durable as `durability` says.
   * Past the stores' deadline (a disk that stopped answering, a lock held by a stuck process) it
   * answers storage-unavailable, as every store does; the write may still be committed later.
   */
  write<T>(callback: () => T, durability: LmdbDurability = this.durability): Promise<T> {
    // Promise chains rather than an async frame: every create passes here.
    const committed = this.root.transaction(callback);
    const done =
      durability === 'flush'
        ? committed.then((result) => this.synced().then(() => result))
        : committed;
    const translated = done.catch((error: unknown) =>
      translate(error, this.dataDir).then((cause) => Promise.reject(cause as Error)),
    );
    return withinDeadline(translated, () => false);
  }

  /**
   * Resolves once a forced environment sync has completed that began after this call: the
   * commits resolved before it (their meta pages written) are then on disk. Calls of one turn of
   * the event loop share one sync, begun at the end of the turn.
   */
  private synced(): Promise<void> {
    if (this.gathering !== undefined) return this.gathering;
    const sync = new Promise<void>((resolve, reject) => {
      setImmediate(() => {
        this.gathering = undefined;
        (this.root as unknown as Syncable).sync((error) =>
          error ? reject(asError(error)) : resolve(),
        );
      });
    });
    this.gathering = sync;
    this.syncing.add(sync);
    const settled = () => void this.syncing.delete(sync);
    sync.then(settled, settled);
    return sync;
  }

  /** Resolves once no sync is under way (the environment may then be closed). */
  async drain(): Promise<void> {
    while (this.syncing.size > 0) await Promise.allSettled([...this.syncing]);
  }
}

/**
 * lmdb-js's `sync(callback)`, left out of its declarations: `mdb_env_sync(env, 1)` on libuv's
 * thread pool (its src/env.cpp, SyncWorker), the callback called with an error or nothing.
 */
interface Syncable {
  sync(callback: (error?: unknown) => void): void;
}

/**
 * lmdb-js's sync fails with an Error holding LMDB's message (strerror) and no code: a sync that
 * failed is the disk's failure, EIO, which translate() reads as a full or a failing disk.
 */
function asError(error: unknown): Error {
  const failed = error instanceof Error ? error : new Error(String(error));
  if (typeof codeOf(failed) !== 'number') Object.assign(failed, { code: EIO });
  return failed;
}

/**
 * A failed commit rejects every write of its batch with one error whose `commitError`, a promise,
 * rejects with the cause (ENOSPC, MDB_MAP_FULL); left unhandled, that promise would end the
 * process. It is handled here, and its cause becomes the domain's error.
 */
export async function translate(error: unknown, dataDir?: string): Promise<unknown> {
  if (error instanceof PlantError) return error;
  const commitError = (error as { commitError?: Promise<unknown> } | undefined)?.commitError;
  const cause = commitError
    ? await commitError.then(
        () => error,
        (found: unknown) => found,
      )
    : error;
  if (isNoRoom(cause) || isReadOnly(cause)) return refusesWrites();
  if (codeOf(cause) === EIO && dataDir !== undefined && lowOnSpace(dataDir)) return refusesWrites();
  if (commitError !== undefined || isSystemError(cause)) return unavailable();
  return error;
}

/** Whether the file system of `dataDir` has almost no room left (false when it cannot tell). */
export function lowOnSpace(dataDir: string): boolean {
  try {
    const { bavail, bsize } = statfsSync(dataDir);
    return bavail * bsize < LOW_SPACE_BYTES;
  } catch {
    return false;
  }
}

const codeOf = (error: unknown): unknown => (error as { code?: unknown } | undefined)?.code;

function isNoRoom(error: unknown): boolean {
  const code = codeOf(error);
  if (typeof code === 'number' && NO_ROOM.has(code)) return true;
  return error instanceof Error && NO_ROOM_TEXT.test(error.message);
}

function isReadOnly(error: unknown): boolean {
  const code = codeOf(error);
  return typeof code === 'number' && READ_ONLY.has(code);
}

/** An error of LMDB or the system (a number code), rather than of this code. */
const isSystemError = (error: unknown): boolean => typeof codeOf(error) === 'number';
