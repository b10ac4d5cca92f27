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
 * queued while it was busy in one transaction, so that concurrent writes share one flush. A callback must throw before its first write, never
 * after (the writes of a batch commit together).
 */
export class LmdbWriter {
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
        ? committed.then((result) => this.root.flushed.then(() => result))
        : committed;
    const translated = done.catch((error: unknown) =>
      translate(error, this.dataDir).then((cause) => Promise.reject(cause as Error)),
    );
    return withinDeadline(translated, () => false);
  }
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
