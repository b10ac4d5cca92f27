import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  readSync,
  realpathSync,
  statfsSync,
  statSync,
  type Stats,
} from 'node:fs';
import { dirname } from 'node:path';
import type { RootDatabase } from 'lmdb';
import { StorageOpenError } from '../storage-open-error.js';

// LMDB maps its data and lock files: a page the file does not hold (cut short) or the disk has no
// room for ends the process (SIGBUS). What would end in a signal or a hang is checked here, before
// LMDB opens anything (docs/storage.md, "Open-time checks").

// An LMDB file begins with two meta pages, each holding, after a page header of 24 bytes in the
// LMDB that lmdb-js 3 ships (its mdb.c, MDB_meta): the magic, the version, the fixed-map address,
// the map size, the free pages' and main database's descriptors (MDB_db, 48 bytes each, the
// first's md_pad being the page size), the last page used, the transaction id.
const MDB_MAGIC = 0xbeefc0de;
const MAGIC = 24;
const PAGE_SIZE = 48;
const FREE_ROOT = 48 + 40;
const MAIN_ROOT = 96 + 40;
const TXN_ID = 152;
const META_BYTES = TXN_ID + 8;
// An empty tree's root (P_INVALID).
const NO_ROOT = 0xffff_ffff_ffff_ffffn;
// LMDB reports a short write as EIO: on a file system with less free than this, that is no room.
const LOW_SPACE_BYTES = 256 * 1024;

/** The environment's file in the data directory (LMDB adds `<file>-lock` beside it). */
export const DATA_FILE = 'plants.mdb';

/** One line: `data file /path (PLANT_STORE_DATA_DIR) is ...`. */
export const refused = (path: string, problem: string, cause?: unknown, what = 'data file') =>
  new StorageOpenError(`${what} ${path}`, 'PLANT_STORE_DATA_DIR', problem, { cause });

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a regular file';
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

/** The damage of the file's first two pages as read now (none: LMDB may map it); throws if foreign. */
function problemOf(path: string, fd: number): string | undefined {
  const first = Buffer.alloc(META_BYTES);
  const read = readSync(fd, first, 0, META_BYTES, 0);
  if (read < MAGIC + 4 || first.readUInt32LE(MAGIC) !== MDB_MAGIC) {
    throw refused(path, 'is not an LMDB environment (a foreign or damaged file); move it away');
  }
  const pageSize = first.readUInt32LE(PAGE_SIZE);
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) {
    return `a page size of ${pageSize} bytes`;
  }
  const second = Buffer.alloc(META_BYTES);
  readSync(fd, second, 0, META_BYTES, pageSize);
  // Read after the meta pages: another process writes a transaction's pages before its meta page.
  const { size } = fstatSync(fd);
  // LMDB writes whole pages, and both meta pages before anything else.
  if (size < 2 * pageSize || size % pageSize !== 0) {
    return `${size} bytes, not a whole number of its ${pageSize}-byte pages: the file is cut short`;
  }
  // LMDB reads the meta page of the latest transaction: its trees' roots must be in the file.
  const metas = [first, second].filter((meta) => meta.readUInt32LE(MAGIC) === MDB_MAGIC);
  const latest = metas.reduce((a, b) =>
    b.readBigUInt64LE(TXN_ID) > a.readBigUInt64LE(TXN_ID) ? b : a,
  );
  const pages = BigInt(size / pageSize);
  for (const at of [FREE_ROOT, MAIN_ROOT]) {
    const root = latest.readBigUInt64LE(at);
    if (root !== NO_ROOT && root >= pages) {
      return `its last transaction's pages reach page ${root}, and the file holds ${pages}: the file is cut short`;
    }
  }
  return undefined;
}

/** Checks `path` before LMDB opens it; resolves it through links: one lock file for every process. */
export function checkDataFile(path: string): string {
  let stats: Stats | undefined;
  try {
    stats = statSync(path, { throwIfNoEntry: false });
  } catch (error) {
    throw refused(path, `cannot be read: ${(error as NodeJS.ErrnoException).code}`, error);
  }
  // A link to nothing: LMDB would make the file where it points, anywhere this user may write.
  if (stats === undefined && lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) {
    throw refused(path, 'is a symbolic link to nothing; remove it or make its target');
  }
  if (stats !== undefined && !stats.isFile()) {
    throw refused(path, `is ${kindOf(stats)}, not a file LMDB can open; move it away`);
  }
  const file = stats === undefined ? path : realpathSync(path);
  // A lock file that is a directory or a FIFO ended the process (SIGSEGV); a link would be followed.
  const lockPath = `${file}-lock`;
  const lock = lstatSync(lockPath, { throwIfNoEntry: false });
  const lockProblem =
    lock === undefined || lock.isFile()
      ? lockFileProblem(lockPath)
      : `is ${lock.isSymbolicLink() ? 'a symbolic link' : kindOf(lock)}, not a file LMDB can lock with; move it away (it holds no data: LMDB makes it again)`;
  if (lockProblem !== undefined) throw refused(lockPath, lockProblem, undefined, 'lock file');
  if (stats !== undefined && stats.size === 0 && path.endsWith(DATA_FILE)) {
    // A copy that did not finish, not a new store: LMDB writes a new file's first pages as it
    // opens it, under its lock, so one empty for a moment is refused.
    const wait = new Int32Array(new SharedArrayBuffer(4));
    for (let tries = 0; statSync(file).size === 0; tries++) {
      if (tries === 10) {
        throw refused(
          path,
          'is empty (0 bytes): a copy or restore that did not finish? Restore it again, or remove it to start an empty store',
        );
      }
      Atomics.wait(wait, 0, 0, 20);
    }
  }
  if (stats !== undefined && stats.size > 0) {
    let fd: number;
    try {
      fd = openSync(file, 'r');
    } catch (error) {
      throw refused(path, `cannot be read: ${(error as NodeJS.ErrnoException).code}`, error);
    }
    try {
      // A meta page read while another process writes it could be torn: read again before refusing.
      let problem = problemOf(path, fd);
      for (let read = 1; read < 3 && problem !== undefined; read++) problem = problemOf(path, fd);
      if (problem !== undefined) {
        throw refused(
          path,
          `is damaged (${problem}); move it away and restore a backup (plant-store backup) or an export`,
        );
      }
    } finally {
      closeSync(fd);
    }
  }
  const making = stats === undefined || stats.size === 0 || !existsSync(`${file}-lock`);
  if (making && lowOnSpace(dirname(file))) {
    throw refused(
      path,
      'cannot be made: its file system has no room left (a lock or data file made now would end the process); free some space',
    );
  }
  return file;
}

// LMDB's lock file (mdb.c, MDB_txninfo, Linux x86-64/arm64): the magic at 0, then on the second
// cache line (64) the write lock, a robust pthread mutex whose first word holds its owner's thread
// id (with two flag bits).
const WRITE_MUTEX = 64;
const HEADER = 128;
const TID_BITS = 0x3fff_ffff;

// Closing any descriptor of the lock file releases all of LMDB's POSIX locks on it in the process
// (another process then took the environment, and writes hung): while it is open, it is read
// through one descriptor, closed once the environment is.
const held = new Map<string, { fd: number; users: number }>();
const inode = (stats: Stats): string => `${stats.dev}:${stats.ino}`;

function head(path: string, stats: Stats): Buffer {
  const entry = held.get(inode(stats));
  const fd = entry?.fd ?? openSync(path, 'r');
  const buffer = Buffer.alloc(HEADER);
  try {
    readSync(fd, buffer, 0, HEADER, 0);
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
  if (stats.size < HEADER || head(path, stats).readUInt32LE(0) !== MDB_MAGIC) {
    return 'is not an LMDB lock file (cut short or overwritten); remove it once no process has the directory open (it holds no data)';
  }
  return undefined;
}

/** The process holding LMDB's write lock, from its owner's thread id, when the system says. */
export function lockHolder(path: string): { pid: number; command: string } | undefined {
  try {
    const tid = head(path, statSync(path)).readUInt32LE(WRITE_MUTEX) & TID_BITS;
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
 * Each second while the environment is open: LMDB's reader check (frees the slots of processes
 * that ended without closing, whose snapshots keep freed pages from reuse), and the lock file,
 * which must stay the one LMDB mapped, else `lost` is told why. Undo after closing the environment.
 */
export function watchLockFile(root: RootDatabase, path: string, lost: (problem: string) => void) {
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
    if (problem === undefined) return void root.readerCheck();
    clearInterval(timer);
    lost(problem);
  }, 1000);
  timer.unref();
  return (): void => {
    clearInterval(timer);
    if (--entry.users > 0) return;
    held.delete(key);
    closeSync(entry.fd);
  };
}
