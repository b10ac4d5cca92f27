import { mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
// First: it points lmdb's loader at the addon built with LMDB's fixes before lmdb loads.
import './lmdb-addon.js';
import { open, type Database, type RootDatabase } from 'lmdb';
import { StorageOpenError } from '../storage-open-error.js';
import { checkDataFile, DATA_FILE, refused as openError } from './lmdb-data-file.js';

/**
 * What this code writes; an environment marked with another format is refused, but format 1 (no
 * tag index), which is upgraded: marked format 2 and TAG_INDEX_FROM at once, so that a version
 * writing no index entries refuses it from then on; openLmdbStorage then builds its index.
 */
export const FORMAT = { store: 'plant-store', format: 2 } as const;
/** In `meta` while the tag index is being built: where the build continues (a plant key, hex). */
export const TAG_INDEX_FROM = 'tagIndexFrom';
/** The limits' environment: ephemeral counts, never flushed. */
export const LIMITS_FILE = 'limits.mdb';

// Token digests and webhook secrets are in the files: the owner alone reads them. A directory or
// file that already exists keeps the modes it has (the operator's choice).
const DIRECTORY_MODE = 0o700;
// lmdb-js hands `permissionsMode` to mdb_env_open (its src/env.cpp; 0664 by default), though its
// declarations omit it: spread from a constant, so the excess-property check does not apply.
const OWNER_ONLY = { permissionsMode: 0o600 };
// Every process on the directory holds a slot of the readers' table (its lock file) while it is
// open: `serve --workers 256` and the commands beside it. LMDB's 126 refused the 127th process
// (MDB_READERS_FULL); 1024 slots make a lock file of 64 KiB. The first process to open the
// directory sizes the table; the others use it as it is.
const MAX_READERS = 1024;

/** Every database of the environment, by name. */
export interface LmdbDatabases {
  readonly root: RootDatabase;
  /** LMDB's lock file of the environment, beside its data file. */
  readonly lockFile: string;
  /**
   * tenant prefix + id -> [name] or [name, tag]; after them the tag index,
   * 0xffff + tenant prefix + tag length (2 bytes) + tag + id -> name.
   */
  readonly plants: Database<unknown, Buffer>;
  /** tenant (UTF-8) -> plants it holds; tenants holding none are absent. */
  readonly tenants: Database<number, Buffer>;
  readonly tokens: Database<unknown, string>;
  readonly webhooks: Database<unknown, string>;
  /** tenant prefix + subscription id -> true: the tenant's subscriptions. */
  readonly webhookIndex: Database<true, Buffer>;
  /** tenant prefix + delivery key -> the delivery. */
  readonly deliveries: Database<unknown, Buffer>;
  /** 1 + tenant prefix + due ms (8 bytes) + delivery key -> true: what the outbox claims from. */
  readonly due: Database<true, Buffer>;
  /** The format, readiness' probe, and TAG_INDEX_FROM while the tag index is being built. */
  readonly meta: Database<unknown, string>;
}

const DATABASES = ['plants', 'tenants', 'tokens', 'webhooks', 'webhookIndex', 'deliveries', 'due'];

/** Makes the directory or says in one line why it cannot be. */
export function makeDataDir(dataDir: string): void {
  try {
    makeDirectories(dataDir);
    if (!statSync(dataDir).isDirectory()) throw new Error('not a directory');
  } catch (error) {
    throw openError(dataDir, `cannot be made or opened: ${reason(error)}`, error, 'data directory');
  }
}

/**
 * `mkdir -p`, each level tried once: Node's own recursive mkdir retries for ever where a parent
 * exists and mkdir under it still answers ENOENT (under /proc/<pid>/), so a command would hang.
 */
function makeDirectories(dir: string): void {
  try {
    mkdirSync(dir, { mode: DIRECTORY_MODE });
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if (code === 'EEXIST') return;
    if (code !== 'ENOENT' || dirname(dir) === dir) throw error;
    makeDirectories(dirname(dir));
    mkdirSync(dir, { mode: DIRECTORY_MODE });
  }
}

/**
 * Opens (creating when absent) the environment of `dataDir`, refusing a file that is not an LMDB
 * environment, an environment another program wrote, and one of another format.
 */
export function openEnvironment(
  dataDir: string,
  options: { noSync?: boolean } = {},
): LmdbDatabases {
  makeDataDir(dataDir);
  const path = join(dataDir, DATA_FILE);
  const file = checkDataFile(path);
  let root: RootDatabase;
  try {
    root = open({
      path: file,
      maxDbs: DATABASES.length + 2,
      eventTurnBatching: false,
      // lmdb-js's overlapping sync lost acknowledged commits of a process while other processes
      // opened and closed the environment (about 1 in 5,000 over 40 openings, none without it):
      // a commit flushes before it is answered, and grouped commits share that flush.
      overlappingSync: false,
      maxReaders: MAX_READERS,
      ...OWNER_ONLY,
      ...(options.noSync && { noSync: true }),
    });
  } catch (error) {
    throw openError(path, `cannot be opened: ${reason(error)}`, error);
  }
  try {
    // Before any database is made, so that another program's environment is left as it was.
    const names = checkNames(root, path);
    const meta = root.openDB<unknown, string>({ name: 'meta', keyEncoding: 'ordered-binary' });
    checkFormat(meta, path, names);
    const binary = (name: string) => root.openDB<never, Buffer>({ name, keyEncoding: 'binary' });
    return {
      root,
      lockFile: `${file}-lock`,
      plants: binary('plants'),
      tenants: binary('tenants'),
      tokens: root.openDB({ name: 'tokens' }),
      webhooks: root.openDB({ name: 'webhooks' }),
      webhookIndex: binary('webhookIndex'),
      deliveries: binary('deliveries'),
      due: binary('due'),
      meta,
    };
  } catch (error) {
    void root.close().catch(() => {});
    if (error instanceof StorageOpenError) throw error;
    throw openError(path, `cannot be opened: ${reason(error)}`, error);
  }
}

/** The limits' environment: a file of its own, opened without flushing (counts last a second). */
export function openLimitsEnvironment(dataDir: string): RootDatabase {
  const path = join(dataDir, LIMITS_FILE);
  const file = checkDataFile(path);
  try {
    // Without event-turn batching, as the plants' environment: with it, a commit failing for want
    // of room rejected a promise of lmdb-js's own that nothing could handle, and the process ended
    // (one failed authentication on a full disk stopped the server).
    return open({
      path: file,
      noSync: true,
      eventTurnBatching: false,
      maxReaders: MAX_READERS,
      ...OWNER_ONLY,
    });
  } catch (error) {
    throw openError(path, `cannot be opened: ${reason(error)}`, error);
  }
}

const foreign = (path: string): StorageOpenError =>
  openError(path, 'holds an LMDB environment that plant-store did not write; move it away');

/** The root database names the named databases: any other key is another program's data. */
function checkNames(root: RootDatabase, path: string): unknown[] {
  const names = [...root.getKeys({ limit: 64 })];
  for (const key of names) {
    if (typeof key !== 'string' || !['meta', ...DATABASES].includes(key)) throw foreign(path);
  }
  // Every store makes `meta` first: without it, opening `meta` would write into another's file.
  if (names.length > 0 && !names.includes('meta')) throw foreign(path);
  return names;
}

/**
 * Marks a new environment with FORMAT; refuses one marked with another, and one without the mark
 * that holds a database (every store since the first marks itself as it opens; another process
 * may be opening this one between making `meta` and marking it). Upgrades format 1 (see FORMAT).
 */
function checkFormat(meta: Database<unknown, string>, path: string, names: unknown[]): void {
  const found = meta.get('format') as { store?: unknown; format?: unknown } | undefined;
  if (found === undefined && names.some((name) => name !== 'meta')) throw foreign(path);
  if (found !== undefined && found.store !== FORMAT.store) throw foreign(path);
  if (found?.format === FORMAT.format) return;
  if (found !== undefined && found.format !== 1) {
    throw openError(
      path,
      `holds plant-store data of format ${String(found.format)}, and this version reads format ${FORMAT.format} (and upgrades format 1); use the version that wrote it`,
    );
  }
  meta.transactionSync(() => {
    const now = meta.get('format') as typeof found;
    if (now?.format === FORMAT.format) return;
    if (now !== undefined) void meta.put(TAG_INDEX_FROM, '');
    void meta.put('format', FORMAT);
  });
}

/** Node's code (`ENOTDIR`) when it has one, else the message (lmdb-js's codes are numbers). */
function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { code } = error as { code?: unknown };
  return typeof code === 'string' ? code : error.message;
}
