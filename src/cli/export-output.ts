import { randomBytes } from 'node:crypto';
import { constants, fstat } from 'node:fs';
import { lstat, open, readdir, realpath, stat, unlink } from 'node:fs/promises';
import { once } from 'node:events';
import { basename, dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { writeChunksAtomically } from '../adapters/transfer/atomic-file.js';
import { UsageError } from './command.js';

/**
 * Where an export goes: stdout (no `--output`, `-`, or this process's stdout by a path); straight
 * into an existing target that is no regular file (/dev/null, a FIFO), which keeps its kind; or a
 * regular file, replaced whole through a temporary (a link followed: the link is kept).
 */
async function exportTarget(
  output: string | undefined,
): Promise<{ kind: 'stdout' } | { kind: 'stream' | 'file'; path: string }> {
  if (output === undefined || output === '-') return { kind: 'stdout' };
  if (output === '') throw new UsageError('--output must name a file');
  const stats = await stat(output).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (stats === undefined) return { kind: 'file', path: output };
  if (stats.isDirectory()) {
    throw new UsageError(`--output ${output} is a directory; name a file (or - for stdout)`);
  }
  // This process's own stdout (/dev/stdout, /proc/self/fd/1), whatever it is: a socket cannot be
  // opened again by path, and a file the shell opened (`>>`) keeps its mode and position.
  const stdout = await promisify(fstat)(1).catch(() => undefined);
  if (stdout?.dev === stats.dev && stdout.ino === stats.ino) return { kind: 'stdout' };
  if (stats.isFile()) return { kind: 'file', path: await realpath(output) };
  return { kind: 'stream', path: output };
}

/** Whether the process is gone: only ESRCH says so (EPERM is a live process of another user). */
function gone(pid: number): boolean {
  // This run has written no temporary yet: one with its pid is a killed run's, the pid reused.
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Removes the temporaries an earlier export to `path` left when it was killed: only names of
 * exactly that pattern (`<file>.<pid>.<24 hex digits>.tmp`, the pid of the run that wrote it),
 * regular files (never a link), owned by this user, whose writer is gone.
 */
async function removeStaleTemporaries(path: string): Promise<void> {
  const directory = dirname(path);
  const file = basename(path);
  for (const name of await readdir(directory).catch(() => [])) {
    const pid =
      name.startsWith(file) && /^\.(\d+)\.[0-9a-f]{24}\.tmp$/.exec(name.slice(file.length))?.[1];
    if (!pid || !gone(Number(pid))) continue;
    const candidate = join(directory, name);
    const stats = await lstat(candidate).catch(() => undefined);
    if (!stats?.isFile() || stats.uid !== process.getuid?.()) continue;
    // Gone meanwhile (another run removed it first) is as good as removed.
    await unlink(candidate).catch(() => {});
  }
}

/** An export's output, open: where the chunks go, and how to release it. */
export interface ExportOutput {
  readonly target: Awaited<ReturnType<typeof exportTarget>>;
  /** Writes the chunks; `signal` aborting between two chunks stops it (a file keeps its content). */
  write(chunks: AsyncIterable<string>, signal: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens what `--output` names, before the store is read and a signal is handled: a FIFO waits
 * here for its reader, and SIGTERM meanwhile ends the process as usual.
 */
export async function openExportOutput(output: string | undefined): Promise<ExportOutput> {
  const target = await exportTarget(output);
  if (target.kind === 'stdout') {
    return {
      target,
      write: async (chunks) => {
        for await (const chunk of chunks) {
          if (!process.stdout.write(chunk)) await once(process.stdout, 'drain');
        }
      },
      close: async () => {},
    };
  }
  const { path } = target;
  if (target.kind === 'stream') {
    // No O_CREAT, no O_TRUNC: the target exists and keeps its kind.
    const handle = await open(path, constants.O_WRONLY | constants.O_NOCTTY);
    return {
      target,
      write: async (chunks, signal) => {
        for await (const chunk of chunks) {
          signal.throwIfAborted();
          await handle.write(chunk);
        }
      },
      close: () => handle.close(),
    };
  }
  await removeStaleTemporaries(path);
  // The temporary carries this run's pid: a later run tells a killed writer's from a live one's.
  const temporary = `${path}.${process.pid}.${randomBytes(12).toString('hex')}.tmp`;
  return {
    target,
    write: (chunks, signal) => writeChunksAtomically(path, chunks, signal, temporary),
    close: async () => {},
  };
}

/** The realpath of `path`, or of its nearest existing parent with the rest appended. */
async function settledPath(path: string): Promise<string> {
  const absolute = resolve(path);
  const found = await realpath(absolute).catch(() => undefined);
  if (found !== undefined) return found;
  const parent = dirname(absolute);
  return parent === absolute ? absolute : join(await settledPath(parent), basename(absolute));
}

// The embedded store's files (lmdb-environment.ts): one replaced by a file of another kind is
// the store lost (plants.mdb, limits.mdb) or its lock split in two (a `-lock` replaced while
// processes hold the one they opened: two writers at once).
const STORE_FILES = ['plants.mdb', 'plants.mdb-lock', 'limits.mdb', 'limits.mdb-lock'];

/**
 * Refuses (exit 2) an `--output` of `export` or `backup` in the embedded store's data directory,
 * or one of its files by another name (a link): an export there once replaced `plants.mdb` whole
 * with NDJSON (every plant, token and subscription lost, exit 0).
 */
export async function refuseDataDirOutput(output: string, dataDir: string): Promise<void> {
  if (output === '' || output === '-') return;
  const directory = await settledPath(dataDir);
  const target = await settledPath(output);
  const inside = dirname(target) === directory || target === directory;
  const found = inside ? undefined : await stat(output).catch(() => undefined);
  const files =
    found && STORE_FILES.map((name) => stat(join(directory, name)).catch(() => undefined));
  const same = (await Promise.all(files ?? [])).some(
    (file) => file?.dev === found!.dev && file.ino === found!.ino,
  );
  if (inside || same) {
    throw new UsageError(
      `--output ${output} is ${same ? 'a file of' : 'in'} the data directory ${dataDir} (PLANT_STORE_DATA_DIR), which holds the store itself: write it elsewhere`,
    );
  }
}
