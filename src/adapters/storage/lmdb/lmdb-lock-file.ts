import {
  accessSync,
  closeSync,
  constants,
  openSync,
  readFileSync,
  readSync,
  statSync,
} from 'node:fs';
import type { RootDatabase } from 'lmdb';

// LMDB's lock file (mdb.c, MDB_txninfo, Linux x86-64/arm64): the magic at 0, then on the second
// cache line (64) the write lock, a robust pthread mutex whose first word holds its owner's thread
// id (with two flag bits). LMDB maps the file: one it cannot read and write, or whose bytes are not
// its own, ends the process with a signal, so it is checked first.
const MDB_MAGIC = 0xbeefc0de;
const WRITE_MUTEX = 64;
const HEADER = 128;
const TID_BITS = 0x3fff_ffff;
// Stale readers cleared and the lock file looked at this often while the environment is open.
const WATCH_MS = 1000;

// LMDB holds POSIX record locks on its lock file, and closing any descriptor of that file in the
// process releases them all (another process then took the environment as its own, and writes
// hung): while a store of this process has it open, it is read through one descriptor, closed
// only once the environment is.
const held = new Map<string, { fd: number; users: number }>();
const inode = (stats: { dev: number; ino: number }): string => `${stats.dev}:${stats.ino}`;

/** The first `bytes` of the lock file `path` (whose stats are `stats`). */
function head(path: string, stats: { dev: number; ino: number }, bytes: number): Buffer {
  const entry = held.get(inode(stats));
  const fd = entry?.fd ?? openSync(path, 'r');
  const buffer = Buffer.alloc(bytes);
  try {
    readSync(fd, buffer, 0, bytes, 0);
  } finally {
    if (entry === undefined) closeSync(fd);
  }
  return buffer;
}

/** Why LMDB cannot use the existing lock file `path`, or undefined when it can (or it is absent). */
export function lockFileProblem(path: string): string | undefined {
  const stats = statSync(path, { throwIfNoEntry: false });
  if (stats === undefined) return undefined;
  try {
    accessSync(path, constants.R_OK | constants.W_OK);
  } catch {
    return `cannot be read and written by this user (uid ${process.getuid?.()}); give the service user the file, or remove it when no process has the directory open`;
  }
  // Empty: LMDB makes it afresh (a process on the directory keeps it whole).
  if (stats.size === 0) return undefined;
  if (stats.size < HEADER || head(path, stats, HEADER).readUInt32LE(0) !== MDB_MAGIC) {
    return 'is not an LMDB lock file (cut short or overwritten); remove it once no process has the directory open (it holds no data)';
  }
  return undefined;
}

/** The process holding LMDB's write lock, from its owner's thread id, when the system says. */
export function lockHolder(path: string): { pid: number; command: string } | undefined {
  try {
    const tid = head(path, statSync(path), HEADER).readUInt32LE(WRITE_MUTEX) & TID_BITS;
    if (tid === 0) return undefined;
    const status = readFileSync(`/proc/${tid}/status`, 'utf8');
    const pid = Number(/^Tgid:\s*(\d+)/m.exec(status)?.[1]);
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    return { pid, command: command.slice(0, 120) };
  } catch {
    return undefined;
  }
}

/**
 * While the environment is open, each second: LMDB's reader check, which frees the slots of
 * processes that ended without closing (a killed `export`), whose snapshots would otherwise keep
 * every page freed after them from reuse and grow the file; and the lock file, which must stay the
 * one LMDB mapped: deleted, replaced or cut short, the next access would end the process with a
 * signal or let another process lock apart from this one, so `lost` is told why instead. The
 * undoing must come after the environment is closed.
 */
export function watchLockFile(
  root: RootDatabase,
  path: string,
  lost: (problem: string) => void,
): () => void {
  const opened = statSync(path);
  const key = inode(opened);
  const entry = held.get(key) ?? { fd: openSync(path, 'r'), users: 0 };
  held.set(key, entry);
  entry.users++;
  const timer = setInterval(() => {
    const now = statSync(path, { throwIfNoEntry: false });
    const problem =
      now === undefined || now.ino !== opened.ino || now.dev !== opened.dev
        ? 'was deleted or replaced while the store had it open'
        : now.size < opened.size
          ? `was cut short (${now.size} of ${opened.size} bytes) while the store had it open`
          : lockFileProblem(path);
    if (problem === undefined) {
      root.readerCheck();
      return;
    }
    clearInterval(timer);
    lost(problem);
  }, WATCH_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    if (--entry.users > 0) return;
    held.delete(key);
    closeSync(entry.fd);
  };
}
