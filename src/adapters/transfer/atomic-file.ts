import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

// A create that never follows a symlink nor reuses a file: O_EXCL fails on anything already there.
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * Writes the file (an export) whole or not at all: the chunks go to a fsynced temporary created
 * exclusively under an unpredictable name (nothing planted is written through), 0600 whatever the
 * umask, then renamed over it; a failure or `signal` removes it. The directory is fsynced after.
 */
export async function writeChunksAtomically(
  path: string,
  chunks: AsyncIterable<string> | Iterable<string>,
  signal?: AbortSignal,
  temporary = `${path}.${randomBytes(12).toString('hex')}.tmp`,
): Promise<void> {
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
  const directory = await open(dirname(path), constants.O_RDONLY | constants.O_DIRECTORY);
  await directory
    .sync()
    // Some file systems refuse fsync on a directory; the rename is done all the same.
    .catch((error: NodeJS.ErrnoException) => {
      if (!['EINVAL', 'EISDIR', 'ENOTSUP'].includes(error.code ?? '')) throw error;
    })
    .finally(() => directory.close());
}
