// export and import (every storage), backup and check (the embedded store's own).
import { createReadStream } from 'node:fs';
import { chmod, link, mkdtemp, open as openFile, rm, stat } from 'node:fs/promises';
import { constants as osConstants } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { isPlantError } from '../domain/errors.js';
import { checkTenant } from '../domain/tenant.js';
import type { PlantSnapshot } from '../ports/plant-store.js';
import type { Storage } from '../ports/storage.js';
import { exportPlants } from '../application/plant-export.js';
import {
  ImportRefused,
  importPlants,
  MAX_LINE_BYTES,
  type ConflictPolicy,
  type ImportSummary,
} from '../application/plant-import.js';
import { ConfigError, type Config } from '../config/index.js';
import { parseExactJson } from '../adapters/exact-json.js';
import { readLines } from '../adapters/transfer/ndjson-lines.js';
import { openExportOutput, refuseDataDirOutput } from './export-output.js';
import { EXIT, type Io, parseOptions, sharedStorageConfig, UsageError } from './command.js';

/** Opens the configured storage's plant store, its snapshots, check and backup where it has them. */
export type OpenPlantStore = (
  config: Config,
) => Promise<Pick<Storage, 'plants' | 'snapshot' | 'backup' | 'check' | 'close'>>;

/** A command over the configured storage's plant store. */
export type StoreCommand = (
  args: string[],
  env: NodeJS.ProcessEnv,
  io: Io,
  open: OpenPlantStore,
) => Promise<number>;

/** The check `export` and `backup` make first: a line naming the first problem, or nothing. */
async function refuseDamaged(store: Pick<Storage, 'check'>): Promise<void> {
  const report = await store.check?.();
  if (report === undefined || report.problems.length === 0) return;
  const more = report.problems.length > 1 ? ` (and ${report.problems.length - 1} more)` : '';
  throw new ConfigError(
    `the store is damaged: ${report.problems[0]}${more}; run plant-store check, and restore a backup or an export`,
  );
}
export const EXPORT_HELP = `Usage: plant-store export [--tenant T ...] [--output FILE]

Writes every plant of the configured storage (lmdb, redis or mongodb; not memory) as NDJSON,
also while servers write to it (docs/operations.md, "Backups"): a header line, one {"tenant","id","name","tag"} line per plant by tenant then ascending id, and
an end line with the count. Memory stays flat however many plants there are. On lmdb (the
default) the plants are those of the instant the export starts; on redis and mongodb each page
is read as it comes, so a plant written meanwhile may or may not be in it.

Options:
  --tenant T     only this tenant; repeat for several (default: every tenant)
  --output FILE  write FILE (0600) through a temporary renamed at the end, so FILE is whole or
                 untouched; a device, FIFO or /dev/stdout is written straight and keeps its
                 kind; a directory is refused; - or none: stdout
  -h, --help     show this help

Exit codes: 0 done, 1 storage or file failed, 2 bad command line or a directory as FILE,
130 / 143 / 129 stopped by SIGINT (Ctrl-C) / SIGTERM / SIGHUP.`;

export const IMPORT_HELP = `Usage: plant-store import [--input FILE] [--on-conflict skip|fail|overwrite] [--max-errors N]

Imports an export into the configured storage, in batches (one write each), recording no webhook
event (a migration is not a create). A plant already there with the same content counts as
present, so a rerun after an interruption finishes the job without duplicates. Every line is
checked as POST /plants checks a plant; tenant quotas are kept.

Options:
  --input FILE               read FILE (default stdin)
  --on-conflict skip|fail|overwrite
                             a plant held with other content: keep it and go on (skip), stop
                             after its batch (fail, the default), or replace it (overwrite)
  --max-errors N             bad lines to report and pass over before stopping (default 0)
  -h, --help                 show this help

Exit codes: 0 every plant imported or present (conflicts kept under skip), 1 storage or file
failed (rerun to finish), 2 bad command line, 4 not every plant taken (bad lines, a conflict
under fail, plants refused for quota, a file cut short or not an export), 130 / 143 / 129
stopped by SIGINT (Ctrl-C) / SIGTERM / SIGHUP between batches.`;

/** Problems printed before the rest are only counted. */
const MAX_PRINTED_PROBLEMS = 100;

const seconds = (since: number): string => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/**
 * Stops the work between batches on the first SIGINT (Ctrl-C), SIGTERM or SIGHUP (what cron,
 * systemd or Kubernetes send), the signal's name its abort reason; a second one ends the process
 * as usual. `exitCode` is 128 + the signal's number, as a shell reports a signal's end.
 */
function interruptible() {
  const controller = new AbortController();
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  const release = () => signals.forEach((name) => process.removeListener(name, onSignal));
  const onSignal = (name: NodeJS.Signals) => (controller.abort(name), release());
  signals.forEach((name) => process.on(name, onSignal));
  const { signal } = controller;
  return { signal, release, exitCode: () => 128 + osConstants.signals[signal.reason as 'SIGINT'] };
}

/** Shows the count and rate so far (and the time left when known) at most once a second. */
function progressMeter(io: Io, started: number) {
  let shown = 0;
  return (verb: string, count: number, fraction?: number): void => {
    const now = performance.now();
    if (io.progress === undefined || now - shown < 1000) return;
    shown = now;
    const elapsed = (now - started) / 1000;
    const left = fraction ? `, ${Math.round((elapsed * (1 - fraction)) / fraction)} s left` : '';
    io.progress(`${verb} ${count} plants, ${Math.round(count / elapsed)}/s${left}`);
  };
}

export const exportCommand: StoreCommand = async (args, env, io, open) => {
  const { values } = parseOptions({
    args,
    options: { tenant: { type: 'string', multiple: true }, output: { type: 'string' } },
  });
  for (const tenant of values.tenant ?? []) {
    const bad = checkTenant(tenant);
    if (bad !== undefined) throw new UsageError(`--tenant ${bad}`);
  }
  const config = sharedStorageConfig(env, 'plants');
  if (values.output !== undefined && config.storage.kind === 'lmdb') {
    await refuseDataDirOutput(values.output, config.storage.dataDir);
  }
  // Before anything is read: a directory is refused, a device or FIFO opened.
  const output = await openExportOutput(values.output);
  const store = await open(config).catch(async (error: unknown) => {
    await output.close();
    throw error;
  });
  // Before a line is written: a damaged store would be exported as if whole.
  await refuseDamaged(store).catch(async (error: unknown) => {
    await Promise.all([output.close(), store.close()]);
    throw error;
  });
  const started = performance.now();
  const meter = progressMeter(io, started);
  const { signal, exitCode, release } = interruptible();
  let plants = 0;
  let snapshot: PlantSnapshot | undefined;
  // Lines gathered into chunks of about 64 KiB: one write per chunk, not per plant.
  async function* chunks(): AsyncGenerator<string> {
    let chunk = '';
    // One instant where the storage has snapshots (lmdb); page by page otherwise.
    snapshot = await store.snapshot?.();
    for await (const line of exportPlants(snapshot ?? store.plants, {
      ...(values.tenant !== undefined && { tenants: values.tenant }),
    })) {
      chunk += `${line}\n`;
      plants++;
      if (chunk.length >= 65_536) {
        signal.throwIfAborted();
        yield chunk;
        chunk = '';
        meter('exported', plants - 1);
      }
    }
    yield chunk;
  }
  try {
    await output.write(chunks(), signal);
  } catch (error) {
    if (!signal.aborted) throw error;
    const { kind } = output.target;
    io.err(
      kind === 'file'
        ? `plant-store: export interrupted; ${values.output} was not written`
        : `plant-store: export interrupted; what ${kind === 'stdout' ? 'stdout' : values.output} got has no end line, so import refuses it as cut short`,
    );
    return exitCode();
  } finally {
    release();
    io.progress?.('');
    snapshot?.release();
    await output.close();
    await store.close();
  }
  // The header and the end line are no plants.
  io.err(`plant-store: exported ${plants - 2} plants in ${seconds(started)}`);
  return EXIT.ok;
};

const POLICIES: readonly ConflictPolicy[] = ['skip', 'fail', 'overwrite'];

export const importCommand: StoreCommand = async (args, env, io, open) => {
  const { values } = parseOptions({
    args,
    options: {
      input: { type: 'string' },
      'on-conflict': { type: 'string' },
      'max-errors': { type: 'string' },
    },
  });
  const policy = (values['on-conflict'] ?? 'fail') as ConflictPolicy;
  if (!POLICIES.includes(policy))
    throw new UsageError('--on-conflict must be skip, fail or overwrite');
  const maxErrors = Number(values['max-errors'] ?? '0');
  if (!/^\d+$/.test(values['max-errors'] ?? '0') || !Number.isSafeInteger(maxErrors)) {
    throw new UsageError('--max-errors must be a whole number');
  }
  const size = values.input === undefined ? undefined : (await stat(values.input)).size;
  const input = values.input === undefined ? process.stdin : createReadStream(values.input);
  const store = await open(sharedStorageConfig(env, 'plants'));
  const started = performance.now();
  const meter = progressMeter(io, started);
  const { signal, exitCode, release } = interruptible();
  let bytes = 0;
  let printed = 0;
  let summary: ImportSummary;
  let done = 0;
  try {
    summary = await importPlants(
      store.plants,
      readLines(input, MAX_LINE_BYTES, (n) => (bytes += n)),
      {
        parseJson: parseExactJson,
        onConflict: policy,
        maxErrors,
        signal,
        onProblem: ({ line, code, reason }) => {
          if (printed++ < MAX_PRINTED_PROBLEMS)
            io.err(`plant-store: line ${line}: ${code}: ${reason}`);
        },
        onProgress: (so) => {
          done = so.imported + so.present + so.replaced;
          meter('imported', so.lines, size ? bytes / size : undefined);
        },
      },
    );
  } catch (error) {
    if (error instanceof ImportRefused) {
      io.err(`plant-store: ${error.message}; nothing was imported`);
      return EXIT.incomplete;
    }
    if (!isPlantError(error)) throw error;
    io.err(
      `plant-store: ${error.message} after ${done} plants were imported or found present; rerun the import to finish`,
    );
    return EXIT.failure;
  } finally {
    release();
    io.progress?.('');
    input.destroy();
    await store.close();
  }
  if (printed > MAX_PRINTED_PROBLEMS) {
    io.err(`plant-store: ${printed - MAX_PRINTED_PROBLEMS} more problems not shown`);
  }
  io.err(
    `plant-store: imported ${summary.imported} plants, ${summary.present} already present, ` +
      `${summary.replaced} replaced, ${summary.conflicts} conflicts, ${summary.refused} refused for quota, ` +
      `${summary.errors} bad lines, in ${seconds(started)}; no webhook event recorded`,
  );
  const { stopped } = summary;
  if (stopped === 'interrupted') {
    io.err('plant-store: import interrupted between batches; rerun it to finish');
    return exitCode();
  }
  if (stopped === 'conflict') io.err('plant-store: stopped at a conflict (--on-conflict fail)');
  if (stopped === 'errors') io.err(`plant-store: stopped after more than ${maxErrors} bad lines`);
  if (!summary.complete && stopped === undefined) {
    io.err('plant-store: the file ends without its end line: it was cut short');
  }
  const whole =
    summary.complete &&
    stopped === undefined &&
    summary.errors === 0 &&
    summary.refused === 0 &&
    (summary.conflicts === 0 || policy === 'skip');
  return whole ? EXIT.ok : EXIT.incomplete;
};

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

const exists = (file: string) => new UsageError(`${file} exists; a backup writes a new file`);

/** FILE, or DIR/plants.mdb for an existing directory; refused when it exists already. */
async function backupFile(output: string): Promise<string> {
  const found = await stat(output).catch(() => undefined);
  const file = found?.isDirectory() ? join(output, DATA_FILE) : output;
  if (found?.isDirectory() ? await stat(file).catch(() => undefined) : found) throw exists(file);
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
    await handle.sync().finally(() => handle.close());
    await link(staged, file).catch((error: NodeJS.ErrnoException) => {
      // Made meanwhile by someone else: kept, as one there before is (exit 2 too).
      throw error.code === 'EEXIST' ? exists(file) : error;
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

export const backupCommand: StoreCommand = async (args, env, io, open) => {
  const { values } = parseOptions({
    args,
    options: { output: { type: 'string' }, compact: { type: 'boolean' } },
  });
  if (!values.output) throw new UsageError('--output FILE|DIR is required');
  if (values.output === '-') {
    // Export's stdout; LMDB's copy goes to a file it makes (a file named "-" was made before).
    throw new UsageError(
      '--output - (stdout) cannot take a backup, which LMDB writes to a file: name a file or a directory (plant-store export writes to stdout)',
    );
  }
  const config = lmdbConfig(
    env,
    (kind) =>
      `backup copies the embedded store (lmdb) only; back PLANT_STORE_STORAGE=${kind} up with ${kind === 'redis' ? 'redis-cli --rdb FILE, or BGSAVE and a copy of dump.rdb' : 'mongodump'}, or use plant-store export`,
  );
  await refuseDataDirOutput(values.output, config.storage.dataDir);
  const file = await backupFile(values.output);
  const started = performance.now();
  const store = await open(config);
  let bytes: number;
  try {
    // A copy of damaged pages is a damaged backup.
    await refuseDamaged(store);
    bytes = await writeCopy(store.backup!, file, values.compact === true);
  } finally {
    await store.close();
  }
  io.err(`plant-store: backed up the store to ${file} (${bytes} bytes) in ${seconds(started)}`);
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

export const checkCommand: StoreCommand = async (args, env, io, open) => {
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
