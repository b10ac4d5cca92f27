import { constants, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * The largest token or webhook file read: 16 MiB. A managed token is a record of about 300 bytes
 * and a subscription about 600, so this is tens of thousands of them; a larger file is refused
 * as broken without being read (a planted or runaway file must not cost a read of its length).
 */
export const MAX_FILE_BYTES = 16 * 1024 * 1024;

/** A file that is there but cannot be used as it is: its content, size or kind. */
export class BrokenFileError extends Error {}

/** Refuses what stat says is no regular file or is larger than `maxBytes`. */
export function checkFile(stats: Stats, maxBytes: number): void {
  if (!stats.isFile()) throw new BrokenFileError('it is not a regular file');
  if (stats.size > maxBytes) {
    throw new BrokenFileError(`it is larger than ${maxBytes} bytes (${stats.size})`);
  }
}

/**
 * Reads a file as text, refusing a non-regular file (a device such as /dev/zero, a FIFO: opened
 * without blocking) and one larger than `maxBytes`, by the open file's own stat, before reading.
 * `follow: false` refuses a symlink at the path (ELOOP): for the side files only this program
 * writes. A file that grows while read is refused once past the bound.
 */
export async function readBounded(
  path: string,
  { maxBytes = MAX_FILE_BYTES, follow = true }: { maxBytes?: number; follow?: boolean } = {},
): Promise<string> {
  const flags = constants.O_RDONLY | constants.O_NONBLOCK | (follow ? 0 : constants.O_NOFOLLOW);
  const handle = await open(path, flags);
  try {
    const stats = await handle.stat();
    checkFile(stats, maxBytes);
    const chunks: Buffer[] = [];
    let length = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(
        Math.max(Math.min(stats.size, maxBytes) - length, 0xffff) + 1,
      );
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      length += bytesRead;
      if (length > maxBytes) throw new BrokenFileError(`it is larger than ${maxBytes} bytes`);
    }
    return Buffer.concat(chunks, length).toString('utf8');
  } finally {
    await handle.close();
  }
}
