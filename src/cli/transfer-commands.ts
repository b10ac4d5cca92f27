import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { constants as osConstants } from 'node:os';
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

/** Opens the configured storage's plant store, its snapshots and backup where it has them, and how to release it (src/composition). */
export type OpenPlantStore = (
  config: Config,
) => Promise<Pick<Storage, 'plants' | 'snapshot' | 'backup' | 'check' | 'close'>>;

/** The check `export` and `backup` make first: a line naming the first problem, or nothing. */
export async function refuseDamaged(store: Pick<Storage, 'check'>): Promise<void> {
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

/** The signals that stop an export or import: Ctrl-C, and what cron, systemd or Kubernetes send. */
const STOPPING_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Stops the work between batches on the first SIGINT, SIGTERM or SIGHUP; a second one ends the
 * process as usual. `exitCode` is 128 + the signal's number, as a shell reports a signal's end.
 */
function interruptible(): { signal: AbortSignal; exitCode(): number; release(): void } {
  const controller = new AbortController();
  let received: NodeJS.Signals = 'SIGINT';
  const release = (): void => {
    for (const name of STOPPING_SIGNALS) process.removeListener(name, onSignal);
  };
  function onSignal(name: NodeJS.Signals): void {
    received = name;
    controller.abort();
    release();
  }
  for (const name of STOPPING_SIGNALS) process.on(name, onSignal);
  return {
    signal: controller.signal,
    exitCode: () => 128 + osConstants.signals[received],
    release,
  };
}

/** Calls `show` at most once a second with the count and rate so far. */
function progressMeter(io: Io, started: number) {
  let shown = 0;
  return (verb: string, count: number, fraction?: number): void => {
    const now = performance.now();
    if (io.progress === undefined || now - shown < 1000) return;
    shown = now;
    const elapsed = (now - started) / 1000;
    const rate = Math.round(count / elapsed);
    const left =
      fraction !== undefined && fraction > 0
        ? `, ${Math.round((elapsed * (1 - fraction)) / fraction)} s left`
        : '';
    io.progress(`${verb} ${count} plants, ${rate}/s${left}`);
  };
}

export async function exportCommand(
  args: string[],
  env: NodeJS.ProcessEnv,
  io: Io,
  open: OpenPlantStore,
): Promise<number> {
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
  let store: Awaited<ReturnType<OpenPlantStore>>;
  try {
    store = await open(config);
  } catch (error) {
    await output.close();
    throw error;
  }
  try {
    // Before a line is written: a damaged store would be exported as if whole.
    await refuseDamaged(store);
  } catch (error) {
    await Promise.all([output.close(), store.close()]);
    throw error;
  }
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
    io.err(
      output.target.kind === 'file'
        ? `plant-store: export interrupted; ${values.output} was not written`
        : `plant-store: export interrupted; what ${output.target.kind === 'stdout' ? 'stdout' : values.output} got has no end line, so import refuses it as cut short`,
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
}

const POLICIES: readonly ConflictPolicy[] = ['skip', 'fail', 'overwrite'];

export async function importCommand(
  args: string[],
  env: NodeJS.ProcessEnv,
  io: Io,
  open: OpenPlantStore,
): Promise<number> {
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
    if (isPlantError(error)) {
      io.err(
        `plant-store: ${error.message} after ${done} plants were imported or found present; rerun the import to finish`,
      );
      return EXIT.failure;
    }
    throw error;
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
  if (summary.stopped === 'interrupted') {
    io.err('plant-store: import interrupted between batches; rerun it to finish');
    return exitCode();
  }
  if (summary.stopped === 'conflict')
    io.err('plant-store: stopped at a conflict (--on-conflict fail)');
  if (summary.stopped === 'errors')
    io.err(`plant-store: stopped after more than ${maxErrors} bad lines`);
  if (!summary.complete && summary.stopped === undefined) {
    io.err('plant-store: the file ends without its end line: it was cut short');
  }
  const whole =
    summary.complete &&
    summary.stopped === undefined &&
    summary.errors === 0 &&
    summary.refused === 0 &&
    (summary.conflicts === 0 || policy === 'skip');
  return whole ? EXIT.ok : EXIT.incomplete;
}
