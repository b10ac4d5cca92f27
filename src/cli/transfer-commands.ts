import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { once } from 'node:events';
import { isPlantError } from '../domain/errors.js';
import { checkTenant } from '../domain/tenant.js';
import type { PlantStore } from '../ports/plant-store.js';
import { exportPlants } from '../application/plant-export.js';
import {
  ImportRefused,
  importPlants,
  MAX_LINE_BYTES,
  type ConflictPolicy,
  type ImportSummary,
} from '../application/plant-import.js';
import { loadConfig, type Config } from '../config/index.js';
import { parseExactJson } from '../adapters/exact-json.js';
import { writeChunksAtomically } from '../adapters/storage/file/locked-file.js';
import { readLines } from '../adapters/transfer/ndjson-lines.js';
import { EXIT, UsageError } from './exit-codes.js';
import { parseOptions } from './parse-options.js';
import type { Io } from './token-commands.js';

/** Opens the configured storage's plant store, and how to release it (src/composition). */
export type OpenPlantStore = (
  config: Config,
) => Promise<{ plants: PlantStore; close(): Promise<void> }>;

export const EXPORT_HELP = `Usage: plant-store export [--tenant T ...] [--output FILE]

Writes every plant of the configured storage (PLANT_STORE_STORAGE=redis or mongodb) as NDJSON:
a header line, one {"tenant","id","name","tag"} line per plant by tenant then ascending id, and
an end line with the count. Memory stays flat however many plants there are.

Options:
  --tenant T     only this tenant; repeat for several (default: every tenant)
  --output FILE  write FILE (0600) through a temporary renamed at the end, so FILE is whole or
                 untouched; default stdout
  -h, --help     show this help

Exit codes: 0 done, 1 storage or file failed, 2 bad command line, 130 interrupted (Ctrl-C).`;

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
under fail, plants refused for quota, a file cut short or not an export), 130 interrupted.`;

/** Problems printed before the rest are only counted. */
const MAX_PRINTED_PROBLEMS = 100;

const seconds = (since: number): string => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/** Stops the work between batches on the first Ctrl-C; a second one ends the process as usual. */
function interruptible(): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const onInterrupt = (): void => {
    controller.abort();
    process.removeListener('SIGINT', onInterrupt);
  };
  process.on('SIGINT', onInterrupt);
  return {
    signal: controller.signal,
    release: () => process.removeListener('SIGINT', onInterrupt),
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

async function openStore(env: NodeJS.ProcessEnv, open: OpenPlantStore) {
  const config = loadConfig(env);
  if (config.storage.kind === 'memory') {
    throw new UsageError(
      'the memory storage keeps plants inside the serving process; export and import them there with exportPlants and importPlants (docs/embedding.md)',
    );
  }
  return open(config);
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
  if (values.output === '') throw new UsageError('--output must name a file');
  const store = await openStore(env, open);
  const started = performance.now();
  const meter = progressMeter(io, started);
  const { signal, release } = interruptible();
  let plants = 0;
  // Lines gathered into chunks of about 64 KiB: one write per chunk, not per plant.
  async function* chunks(): AsyncGenerator<string> {
    let chunk = '';
    for await (const line of exportPlants(store.plants, {
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
    if (values.output === undefined) {
      for await (const chunk of chunks()) {
        if (!process.stdout.write(chunk)) await once(process.stdout, 'drain');
      }
    } else {
      await writeChunksAtomically(values.output, chunks(), signal);
    }
  } catch (error) {
    if (!signal.aborted) throw error;
    io.err(
      values.output === undefined
        ? 'plant-store: export interrupted; what stdout got has no end line, so import refuses it as cut short'
        : `plant-store: export interrupted; ${values.output} was not written`,
    );
    return EXIT.interrupted;
  } finally {
    release();
    io.progress?.('');
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
  const store = await openStore(env, open);
  const started = performance.now();
  const meter = progressMeter(io, started);
  const { signal, release } = interruptible();
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
    return EXIT.interrupted;
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
