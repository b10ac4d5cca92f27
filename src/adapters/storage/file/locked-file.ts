import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { readBounded } from './bounded-read.js';

const LOCK_ATTEMPTS = 100;
const LOCK_WAIT_MS = 20;
/**
 * A lock holding no pid (its holder died or failed between the create and the write of its pid)
 * or anything else than a pid is taken over once this old: far longer than that gap ever lasts.
 */
export const EMPTY_LOCK_STALE_MS = 5000;

// A create that never follows a symlink nor reuses a file: O_EXCL fails on anything already there.
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * Writes the file by rename of a fsynced temporary: readers see the old or the new text, never
 * half. The temporary has an unpredictable name (`<file>.<24 hex digits>.tmp`) and is created
 * exclusively, so a symlink or file planted beside the file is never written through; the file is
 * its owner's only (0600 whatever the umask), and the directory is fsynced so the rename lasts.
 * (write-file-atomic does not fit: it opens a guessable name without O_EXCL and writes through a
 * symlinked target.)
 */
export async function writeAtomically(path: string, text: string): Promise<void> {
  await writeChunksAtomically(path, [text]);
}

/**
 * As writeAtomically, for text that arrives in chunks (an export): streamed to the temporary and
 * renamed at the end, so the file appears whole or not at all; a failure, or `signal` aborting
 * between chunks, removes the temporary and leaves any earlier file as it was.
 */
export async function writeChunksAtomically(
  path: string,
  chunks: AsyncIterable<string> | Iterable<string>,
  signal?: AbortSignal,
): Promise<void> {
  const temporary = `${path}.${randomBytes(12).toString('hex')}.tmp`;
  const handle = await open(temporary, CREATE_NEW, 0o600);
  try {
    try {
      await handle.chmod(0o600);
      for await (const chunk of chunks) {
        signal?.throwIfAborted();
        await handle.write(chunk);
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
    signal?.throwIfAborted();
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw error;
  }
  await syncDirectory(dirname(path));
}

async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await handle.sync();
  } catch (error) {
    // Some file systems refuse fsync on a directory; the rename is done all the same.
    if (!['EINVAL', 'EISDIR', 'ENOTSUP'].includes((error as NodeJS.ErrnoException).code ?? '')) {
      throw error;
    }
  } finally {
    await handle.close();
  }
}

/**
 * Whether the lock is abandoned: its holder (the pid it holds) is gone, a process killed while
 * holding it; or it holds no pid (empty, unreadable, anything planted) and is EMPTY_LOCK_STALE_MS old.
 */
async function abandoned(lockPath: string): Promise<boolean> {
  // A pid is a few bytes; a symlink or anything larger planted there is no lock of ours.
  const held = await readBounded(lockPath, { maxBytes: 32, follow: false }).catch(() => '');
  const pid = Number(held);
  if (held === '' || !Number.isSafeInteger(pid) || pid <= 0) {
    const since = await lstat(lockPath).then(
      (stats) => stats.mtimeMs,
      () => Date.now(),
    );
    return Date.now() - since >= EMPTY_LOCK_STALE_MS;
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Runs `work` holding `<path>.lock` (an exclusive create holding the holder's pid), waiting up to
 * 2 s for it; a lock whose holder died (SIGKILL mid-write) is taken over, and one without a pid
 * once it is EMPTY_LOCK_STALE_MS old. A lock whose pid could not be written (a full disk) is
 * closed and removed at once, so that the failure leaves nothing behind.
 */
export async function withLock<T>(path: string, work: () => Promise<T>): Promise<T> {
  const lockPath = `${path}.lock`;
  let lock: FileHandle;
  for (let attempt = 1; ; attempt++) {
    try {
      lock = await open(lockPath, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (await abandoned(lockPath)) {
        await unlink(lockPath).catch(() => {});
        continue;
      }
      if (attempt === LOCK_ATTEMPTS) {
        throw new Error(`it stayed locked for 2 s; if no command is running, remove ${lockPath}`, {
          cause: error,
        });
      }
      await new Promise((resolve) => setTimeout(resolve, LOCK_WAIT_MS));
      continue;
    }
    try {
      await lock.writeFile(String(process.pid));
      break;
    } catch (error) {
      await lock.close().catch(() => {});
      await unlink(lockPath).catch(() => {});
      throw error;
    }
  }
  try {
    return await work();
  } finally {
    await lock.close();
    await unlink(lockPath).catch(() => {});
  }
}
