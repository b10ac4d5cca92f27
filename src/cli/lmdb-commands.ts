// `backup` and `check`: the embedded store's own commands, run as `export` and `import` are.
import { chmod, link, mkdtemp, open as openFile, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { ConfigError } from '../config/index.js';
import { refuseDataDirOutput } from './export-output.js';
import { refuseDamaged, type exportCommand } from './transfer-commands.js';
import { EXIT, parseOptions, sharedStorageConfig, UsageError } from './command.js';

/** The embedded store's file, as a data directory holds it. */
const DATA_FILE = 'plants.mdb';

export const BACKUP_HELP = `Usage: plant-store backup --output FILE|DIR [--compact]

Copies the embedded store (lmdb, the default storage) to a new file while servers go on using it:
the copy is the store at one instant, holding every write acknowledged before the backup began.
An existing DIR receives DIR/${DATA_FILE}. The copy is written beside FILE under a temporary name,
made 0600 (it holds token digests and webhook secrets), flushed and then named FILE, so FILE is
whole or absent; an existing FILE is never overwritten. The copy is a file: - (stdout) is refused.
A store that fails plant-store check is refused, in one line.

Restore (docs/operations.md, "Backups"): stop every process on the data directory, move its
${DATA_FILE} and ${DATA_FILE}-lock away, put the copy there as ${DATA_FILE}, start.

Redis and MongoDB are refused: they have their own tools (redis-cli --rdb, or BGSAVE and a copy of
dump.rdb; mongodump). \`plant-store export\` works on every storage.

Options:
  --output FILE|DIR  where the copy goes (required)
  --compact          leave the store's free pages out: a smaller copy, taken more slowly
  -h, --help         show this help

Exit codes: 0 done, 1 storage or file failed, 2 bad command line or FILE exists.`;

/** What each server storage backs up with instead. */
const OWN_TOOLS: Record<string, string> = {
  redis: 'redis-cli --rdb FILE, or BGSAVE and a copy of dump.rdb',
  mongodb: 'mongodump',
};

/** FILE, or DIR/plants.mdb for an existing directory; refused when it exists already. */
async function backupFile(output: string): Promise<string> {
  const found = await stat(output).catch(() => undefined);
  const file = found?.isDirectory() ? join(output, DATA_FILE) : output;
  if (found?.isDirectory() ? await stat(file).catch(() => undefined) : found) {
    throw new UsageError(`${file} exists; a backup writes a new file`);
  }
  return resolve(file);
}

/**
 * The copy into a directory of our own beside `file` (made 0700), flushed, made 0600 and linked
 * as `file`: no one reads it half-written or before its mode is set, and a file made meanwhile
 * under that name is kept (EEXIST).
 */
async function writeCopy(
  copy: (path: string, compact: boolean) => Promise<void>,
  file: string,
  compact: boolean,
): Promise<number> {
  const staging = await mkdtemp(join(dirname(file), '.plant-store-backup-'));
  try {
    const staged = join(staging, DATA_FILE);
    await copy(staged, compact);
    await chmod(staged, 0o600);
    const handle = await openFile(staged, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await link(staged, file).catch((error: NodeJS.ErrnoException) => {
      // Made meanwhile by someone else: kept, as one there before is (exit 2 too).
      if (error.code === 'EEXIST')
        throw new UsageError(`${file} exists; a backup writes a new file`);
      throw error;
    });
    return (await stat(file)).size;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** The configuration, refused (`refusal`) unless the storage is the embedded store. */
function lmdbConfig(env: NodeJS.ProcessEnv, refusal: (kind: string) => string) {
  const config = sharedStorageConfig(env, 'plants');
  if (config.storage.kind !== 'lmdb') throw new ConfigError(refusal(config.storage.kind));
  return { ...config, storage: config.storage };
}

export const backupCommand = async (
  ...[args, env, io, open]: Parameters<typeof exportCommand>
): Promise<number> => {
  const { values } = parseOptions({
    args,
    options: { output: { type: 'string' }, compact: { type: 'boolean' } },
  });
  if (values.output === undefined || values.output === '') {
    throw new UsageError('--output FILE|DIR is required');
  }
  if (values.output === '-') {
    // Export's stdout; LMDB's copy goes to a file it makes (a file named "-" was made before).
    throw new UsageError(
      '--output - (stdout) cannot take a backup, which LMDB writes to a file: name a file or a directory (plant-store export writes to stdout)',
    );
  }
  const config = lmdbConfig(
    env,
    (kind) =>
      `backup copies the embedded store (lmdb) only; back PLANT_STORE_STORAGE=${kind} up with ${OWN_TOOLS[kind] ?? 'its own tools'}, or use plant-store export`,
  );
  await refuseDataDirOutput(values.output, config.storage.dataDir);
  const file = await backupFile(values.output);
  const started = performance.now();
  const store = await open(config);
  let bytes: number;
  try {
    if (store.backup === undefined) throw new ConfigError('the lmdb storage has no backup');
    // A copy of damaged pages is a damaged backup.
    await refuseDamaged(store);
    bytes = await writeCopy(store.backup, file, values.compact === true);
  } finally {
    await store.close();
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  io.err(`plant-store: backed up the store to ${file} (${bytes} bytes) in ${seconds} s`);
  return EXIT.ok;
};

export const CHECK_HELP = `Usage: plant-store check

Reads the whole embedded store (lmdb, the default storage) in one read transaction, while servers
go on using it, and says what is wrong, one line each: pages LMDB's own checks refuse, plant
entries it cannot read, tenants whose plants disagree with their counts. export and backup make
the same check first and refuse a store that fails it. A store that fails: restore a backup or an
export (docs/operations.md, "Backing up a running instance on the default storage").

Options:
  -h, --help  show this help

Exit codes: 0 the store is whole, 1 something is wrong (or the storage failed).`;

export const checkCommand = async (
  ...[args, env, io, open]: Parameters<typeof exportCommand>
): Promise<number> => {
  parseOptions({ args, options: {} });
  const config = lmdbConfig(
    env,
    (kind) =>
      `check reads the embedded store (lmdb) only; PLANT_STORE_STORAGE=${kind} has its own tools`,
  );
  const store = await open(config);
  try {
    const report = await store.check!();
    for (const problem of report.problems) io.err(`plant-store: ${problem}`);
    const found = `${report.plants} plants in ${report.tenants} tenants`;
    if (report.problems.length > 0) {
      io.err(`plant-store: ${config.storage.dataDir} is damaged (read ${found})`);
      return EXIT.failure;
    }
    io.err(`plant-store: ${config.storage.dataDir} checked: ${found}, nothing wrong`);
    return EXIT.ok;
  } finally {
    await store.close();
  }
};
