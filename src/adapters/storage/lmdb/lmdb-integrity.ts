import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Storage } from '../../../ports/storage.js';
import {
  openEnvironment,
  TAG_INDEX,
  TAG_INDEX_FROM,
  type LmdbDatabases,
} from './lmdb-environment.js';
import type { PlantValue } from './lmdb-plant-store.js';

/** What a walk of the whole store found: `problems`, one line each, is empty when it is whole. */
type IntegrityReport = Awaited<ReturnType<NonNullable<Storage['check']>>>;

// A store damaged all over would name every tenant: the first few say enough.
const MOST = 20;

/**
 * Reads every entry of every database in one read transaction (LMDB checks each page it reads),
 * each tenant's plants against its count, and (once built) the tag index against the plants.
 * O(store): for `check`, `export` and `backup` (docs/storage.md).
 */
export function checkIntegrity(dbs: LmdbDatabases): IntegrityReport {
  const problems: string[] = [];
  const transaction = dbs.root.useReadTransaction();
  const held = new Map<string, number>();
  const hex = (key: Buffer): string => key.toString('hex').slice(0, 40);
  const malformed = (what: string, key: Buffer): number =>
    problems.push(`a ${what} entry is malformed (key ${hex(key)})`);
  let plants = 0;
  let tagged = 0;
  try {
    for (const { key, value } of dbs.plants.getRange({ end: TAG_INDEX, transaction })) {
      const length = key.length >= 2 ? key.readUInt16BE(0) : -1;
      const [name, tag] = Array.isArray(value) ? (value as unknown[]) : [];
      if (key.length !== length + 10 || typeof name !== 'string') {
        malformed('plant', key);
        continue;
      }
      const tenant = key.toString('utf8', 2, 2 + length);
      held.set(tenant, (held.get(tenant) ?? 0) + 1);
      plants++;
      if (tag !== undefined) tagged++;
    }
    let indexed = 0;
    for (const { key, value } of dbs.plants.getRange({ start: TAG_INDEX, transaction })) {
      const length = key.length >= 4 ? key.readUInt16BE(2) : -1;
      const tagAt = 4 + length;
      const tagLength = key.length >= tagAt + 2 ? key.readUInt16BE(tagAt) : -1;
      if (key.length !== tagAt + 2 + tagLength + 8) {
        malformed('tag index', key);
        continue;
      }
      indexed++;
      const plant = Buffer.concat([key.subarray(2, tagAt), key.subarray(-8)]);
      const [name, tag] = (dbs.plants.get(plant, { transaction }) ?? []) as PlantValue | [];
      if (tag !== key.toString('utf8', tagAt + 2, tagAt + 2 + tagLength) || name !== value) {
        problems.push(
          `a tag index entry names no plant holding its tag and name (key ${hex(key)})`,
        );
      }
    }
    if (indexed !== tagged && dbs.meta.get(TAG_INDEX_FROM, { transaction }) === undefined) {
      problems.push(`the tag index holds ${indexed} entries for ${tagged} tagged plants`);
    }
    let tenants = 0;
    for (const { key, value } of dbs.tenants.getRange({ transaction })) {
      const tenant = key.toString('utf8');
      const found = held.get(tenant) ?? 0;
      if (value !== found) {
        problems.push(`tenant "${tenant}" is counted ${String(value)} plants and holds ${found}`);
      }
      held.delete(tenant);
      tenants++;
    }
    for (const [tenant, found] of held) {
      problems.push(`tenant "${tenant}" holds ${found} plants and has no count`);
    }
    const { tokens, webhooks, webhookIndex, deliveries, due, meta } = dbs;
    for (const db of [tokens, webhooks, webhookIndex, deliveries, due, meta]) {
      for (const entry of db.getRange({ transaction })) void entry;
    }
    return { plants, tenants, problems: problems.slice(0, MOST) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    problems.push(`a page fails LMDB's checks (${reason.split('\n')[0]})`);
    return { plants, tenants: held.size, problems: problems.slice(0, MOST) };
  } finally {
    transaction.done();
  }
}

const SELF = fileURLToPath(import.meta.url);

// checkIntegrity in a child process (this module, under this process's loader): on some damaged
// pages LMDB's assertions abort the process reading them.
export function checkInChild(dataDir: string): Promise<IntegrityReport> {
  const child = fork(SELF, [dataDir], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  let said = '';
  child.stderr!.on(
    'data',
    (chunk: Buffer) => (said = `${said}${chunk}`.trim().split('\n').at(-1)!),
  );
  let report: IntegrityReport | undefined;
  child.on('message', (message) => (report = message as IntegrityReport));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (_code, signal) => {
      if (report !== undefined) return resolve(report);
      if (signal === null) return reject(new Error(said));
      const problems = [`a page fails LMDB's checks (its reader ended by ${signal}: ${said})`];
      resolve({ plants: 0, tenants: 0, problems });
    });
  });
}

if (process.argv[1] === SELF && process.send !== undefined) {
  const dbs = openEnvironment(process.argv[2]!);
  process.send(checkIntegrity(dbs), () => void dbs.root.close().finally(() => process.exit(0)));
}
