import { isPlantError } from '../domain/errors.js';
import { parseNewPlant, type StoredPlant } from '../domain/plant.js';
import { printableText } from '../domain/printable-text.js';
import { checkTenant } from '../domain/tenant.js';
import type { ImportOutcome, PlantStore } from '../ports/plant-store.js';
import { DEFAULT_PAGE_SIZE, EXPORT_FORMAT, EXPORT_VERSION } from './plant-export.js';

/** What to do with a plant the tenant holds with other content. */
export type ConflictPolicy = 'skip' | 'fail' | 'overwrite';

/** Bytes a line may hold: a plant line is a few KiB at most; this is the HTTP body's bound. */
export const MAX_LINE_BYTES = 64 * 1024;

/** One line the import did not take: its number (1 is the header), a stable code and why. */
export interface ImportProblem {
  line: number;
  code: 'invalid-line' | 'invalid-tenant' | 'invalid-plant' | 'conflict' | 'plant-quota-reached';
  reason: string;
}

export interface ImportOptions {
  /** Reads a line's JSON exactly, integers as bigint (never JSON.parse, which rounds ids). */
  parseJson(text: string): unknown;
  /** Default 'fail': stop after the batch that met the first conflict (and those in flight with it). */
  onConflict?: ConflictPolicy;
  /** Bad lines taken before the import stops (default 0: at the first) */
  maxErrors?: number;
  /** Plants per store write (DEFAULT_PAGE_SIZE) */
  batchSize?: number;
  /** Stops the import between two batches */
  signal?: AbortSignal;
  onProblem?(problem: ImportProblem): void;
  /** After each batch, with the counts so far */
  onProgress?(summary: ImportSummary): void;
}

export interface ImportSummary {
  /** Plant lines read */
  lines: number;
  /** Plants stored, found present with the same content, replaced, kept in conflict, refused for quota. */
  imported: number;
  present: number;
  replaced: number;
  conflicts: number;
  refused: number;
  /** Lines refused: not JSON, not a plant, a tenant the contract refuses */
  errors: number;
  /** Early: signal, 'fail', over maxErrors */
  stopped?: 'interrupted' | 'conflict' | 'errors';
  /** The end line was read and its count matched: the whole export was there */
  complete: boolean;
}

/** A file the import refuses as a whole: not an export, or not one this version reads. */
export class ImportRefused extends Error {
  override name = 'ImportRefused';
}

type Entry = { line: number; plant: StoredPlant };
type Refusal = [code: ImportProblem['code'], reason: string];

const IN_FLIGHT = 4;

const COUNTED = {
  stored: 'imported',
  present: 'present',
  replaced: 'replaced',
  conflict: 'conflicts',
  quota: 'refused',
} as const satisfies Record<ImportOutcome, keyof ImportSummary>;

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const TYPE_NAMES: Record<string, string> = {
  undefined: 'none',
  string: 'a string',
  number: 'a number that is not an integer',
  boolean: 'a boolean',
  object: 'an object',
};

/** What a JSON value is, for a message: never the value itself, which comes from the file. */
const typeName = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : TYPE_NAMES[typeof value]!;

function checkHeader(first: string | Uint8Array | undefined, parseJson: (t: string) => unknown) {
  const header = first === undefined ? 'no line' : parse(first, parseJson);
  if (typeof header === 'string' || header.format !== EXPORT_FORMAT || header.end !== undefined) {
    throw new ImportRefused(`line 1 is not the header of a ${EXPORT_FORMAT} file`);
  }
  if (typeof header.version !== 'bigint') {
    throw new ImportRefused(
      `the header's version must be an integer; the file's is ${typeName(header.version)} (this import reads version ${EXPORT_VERSION})`,
    );
  }
  if (header.version !== BigInt(EXPORT_VERSION)) {
    throw new ImportRefused(
      `the file is version ${header.version}; this import reads version ${EXPORT_VERSION}`,
    );
  }
}

/**
 * Imports an export's lines (without newline) a batch of one tenant's plants per write, with no
 * webhook event, each line checked as POST /plants checks it. Idempotent: a plant held alike is
 * present, so a rerun finishes an interrupted job. Rejects with ImportRefused on a bad header.
 */
export async function importPlants(
  store: PlantStore,
  lines: AsyncIterable<string | Uint8Array>,
  options: ImportOptions,
): Promise<ImportSummary> {
  const { parseJson, onConflict: policy = 'fail', maxErrors = 0, signal } = options;
  const batchSize = options.batchSize ?? DEFAULT_PAGE_SIZE;
  const summary: ImportSummary = {
    lines: 0,
    imported: 0,
    present: 0,
    replaced: 0,
    conflicts: 0,
    refused: 0,
    errors: 0,
    complete: false,
  };
  // A reason may quote the file (a JSON parser's message quotes the text it stopped at): it is
  // escaped, so that printing it cannot rewrite the operator's terminal.
  const problem = (line: number, code: ImportProblem['code'], reason: string): void => {
    options.onProblem?.({ line, code, reason: printableText(reason) });
  };
  let number = 0;
  const refuse = (...[code, reason]: Refusal): void => {
    summary.errors++;
    problem(number, code, reason);
  };
  let tenant = '';
  let batch = new Map<bigint, Entry>(); // by plant id, in the file's order
  let endAt: number | undefined;

  const count = (entries: Entry[], of: string, outcomes: ImportOutcome[]): void => {
    const holds = `tenant ${JSON.stringify(of)} holds`;
    outcomes.forEach((outcome, i) => {
      summary[COUNTED[outcome]]++;
      const { line, plant } = entries[i]!;
      if (outcome === 'conflict') {
        problem(line, 'conflict', `${holds} plant ${plant.id} with other content`);
        if (policy === 'fail') summary.stopped = 'conflict';
      } else if (outcome === 'quota') {
        problem(line, 'plant-quota-reached', `${holds} its quota; plant ${plant.id} refused`);
      }
    });
    options.onProgress?.(summary);
  };
  // Up to IN_FLIGHT batches are written while the next is read and checked, so that neither the
  // store's round trip nor the parsing waits for the other. Writes in flight together may land in
  // any order (a pool of connections, a Cluster's nodes), so a batch holding an id of a batch in
  // flight waits for it: a repeated id lands as the file's later line says.
  const inFlight: { tenant: string; batch: Map<bigint, Entry>; write: Promise<void> }[] = [];
  const settle = async (count: number): Promise<void> => {
    const settled = await Promise.allSettled(inFlight.splice(0, count).map((sent) => sent.write));
    const failed = settled.find((result) => result.status === 'rejected');
    if (failed === undefined) return;
    // Nothing is left behind unawaited when a write fails: the rest settle before the error.
    await Promise.allSettled(inFlight.splice(0).map((sent) => sent.write));
    throw failed.reason;
  };
  const flush = async (): Promise<void> => {
    if (batch.size === 0) return;
    const [sent, of, entries] = [batch, tenant, [...batch.values()]];
    batch = new Map();
    const overlapping = inFlight.findLastIndex(
      (earlier) => earlier.tenant === of && [...sent.keys()].some((id) => earlier.batch.has(id)),
    );
    if (overlapping >= 0) {
      await settle(overlapping + 1);
      // Not sent: the import stops after the batches in flight with the first conflict.
      if (summary.stopped === 'conflict') return;
    }
    const plants = entries.map((entry) => entry.plant);
    const write = store
      .importBatch(of, plants, policy === 'overwrite')
      .then((outcomes) => count(entries, of, outcomes));
    // Awaited by settle; until then a rejection must not count as unhandled.
    write.catch(() => {});
    inFlight.push({ tenant: of, batch: sent, write });
    if (inFlight.length >= IN_FLIGHT) await settle(1);
  };

  for await (const line of lines) {
    if (++number === 1) {
      checkHeader(line, parseJson);
      continue;
    }
    const value = parse(line, parseJson);
    if (typeof value === 'string') {
      summary.lines++;
      refuse('invalid-line', value);
    } else if (endAt !== undefined) {
      refuse('invalid-line', `a line after the end line (line ${endAt})`);
    } else if (value.end === true && value.format === EXPORT_FORMAT) {
      endAt = number;
      summary.complete = value.plants === BigInt(summary.lines);
      const counted = `the end line counts ${String(value.plants)} plants`;
      if (!summary.complete) refuse('invalid-line', `${counted}; the file holds ${summary.lines}`);
    } else {
      summary.lines++;
      const entry = readPlant(value);
      if (Array.isArray(entry)) refuse(...entry);
      else {
        if (entry.tenant !== tenant || batch.size >= batchSize || batch.has(entry.plant.id)) {
          await flush();
          if (summary.stopped !== undefined || signal?.aborted) break;
          tenant = entry.tenant;
        }
        batch.set(entry.plant.id, { line: number, plant: entry.plant });
      }
    }
    if (summary.errors > maxErrors) {
      summary.stopped = 'errors';
      break;
    }
  }
  if (number === 0) checkHeader(undefined, parseJson);
  if (summary.stopped === 'errors' || (summary.stopped === undefined && !signal?.aborted)) {
    await flush();
  }
  await settle(inFlight.length);
  if (signal?.aborted && summary.stopped === undefined) summary.stopped = 'interrupted';
  return summary;
}

/** The line's JSON object, or why it is not one. */
function parse(line: string | Uint8Array, parseJson: (t: string) => unknown) {
  let text: string;
  try {
    if (typeof line !== 'string' && line.length > MAX_LINE_BYTES) throw new RangeError('too long');
    text = typeof line === 'string' ? line : UTF8.decode(line);
  } catch {
    return `not UTF-8 text of at most ${MAX_LINE_BYTES} bytes`;
  }
  let value: unknown;
  try {
    value = parseJson(text);
  } catch (error) {
    const reason = error instanceof RangeError ? 'nested too deeply' : (error as Error).message;
    return `not valid JSON: ${reason.slice(0, 200)}`;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : 'not a JSON object';
}

/** The tenant and plant of a line, checked as POST /plants checks them, or why it is refused. */
function readPlant(
  value: Record<string, unknown>,
): { tenant: string; plant: StoredPlant } | Refusal {
  const badTenant = checkTenant(value.tenant);
  if (badTenant !== undefined) return ['invalid-tenant', `tenant ${badTenant}`];
  try {
    return { tenant: value.tenant as string, plant: parseNewPlant(value) };
  } catch (error) {
    if (!isPlantError(error)) throw error;
    return ['invalid-plant', error.message];
  }
}
