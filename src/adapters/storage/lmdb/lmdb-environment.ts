import { mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
// First: it points lmdb's loader at the addon built with LMDB's fixes before lmdb loads.
import './lmdb-addon.js';
import { open, type Database, type RootDatabase, type RootDatabaseOptions } from 'lmdb';
import type { PlantId } from '../../../domain/plant-id.js';
import { StorageOpenError } from '../storage-open-error.js';
import { checkDataFile, DATA_FILE, refused as openError } from './lmdb-data-file.js';

// What this code writes; another format is refused, but format 1 (no tag index), marked format 2
// and TAG_INDEX_FROM at once (a version writing no index refuses it then), and indexed on opening.
export const FORMAT = { store: 'plant-store', format: 2 } as const;
/** In `meta` while the tag index is being built: where the build continues (a plant key, hex). */
export const TAG_INDEX_FROM = 'tagIndexFrom';

// Token digests and webhook secrets are in the files: the owner alone reads them. A directory or
// file that already exists keeps the modes it has (the operator's choice).
const DIRECTORY_MODE = 0o700;
const OPTIONS = {
  // With event-turn batching, a commit failing for want of room rejected a promise of lmdb-js's
  // own that nothing handled, and the process ended.
  eventTurnBatching: false,
  // Every process on the directory holds a slot of the readers' table (the lock file) while it is
  // open: LMDB's 126 refused the 127th process; 1024 make a lock file of 64 KiB.
  maxReaders: 1024,
  // lmdb-js hands it to mdb_env_open (0664 by default), though its declarations omit it: spread
  // from a constant, so the excess-property check does not apply.
  permissionsMode: 0o600,
};
const DATABASES = ['plants', 'tenants', 'tokens', 'webhooks', 'webhookIndex', 'deliveries', 'due'];

/** Every database of the environment, by name, and its lock file (openEnvironment). */
export type LmdbDatabases = ReturnType<typeof openEnvironment>;

// `mkdir -p`, each level tried once: Node's recursive mkdir retries for ever where a parent exists
// and mkdir under it still answers ENOENT (under /proc/<pid>/), so a command would hang.
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

/** checkDataFile, then lmdb's `open` of `name` in `dataDir`, its failure in one line. */
function openFile(dataDir: string, name: string, options: RootDatabaseOptions) {
  const path = join(dataDir, name);
  const file = checkDataFile(path);
  try {
    return { path, file, root: open({ path: file, ...OPTIONS, ...options }) };
  } catch (error) {
    throw openError(path, `cannot be opened: ${reason(error)}`, error);
  }
}

/** Opens (making it when absent) the environment of `dataDir`, refusing another program's. */
export function openEnvironment(dataDir: string, options: { noSync?: boolean } = {}) {
  try {
    makeDirectories(dataDir);
    if (!statSync(dataDir).isDirectory()) throw new Error('not a directory');
  } catch (error) {
    throw openError(dataDir, `cannot be made or opened: ${reason(error)}`, error, 'data directory');
  }
  const { path, file, root } = openFile(dataDir, DATA_FILE, {
    maxDbs: DATABASES.length + 2,
    // lmdb-js's overlapping sync lost acknowledged commits of a process while other processes
    // opened and closed the environment (about 1 in 5,000 over 40 openings, none without it):
    // a commit flushes before it is answered, and grouped commits share that flush.
    overlappingSync: false,
    ...(options.noSync && { noSync: true }),
  });
  try {
    // The root database names the named databases: any other key is another program's data,
    // checked before any database is made, so that it is left as it was. Every store makes
    // `meta` first: without it, opening `meta` would write into another's file.
    const names = [...root.getKeys({ limit: 64 })];
    const known = (key: unknown) => typeof key === 'string' && ['meta', ...DATABASES].includes(key);
    if (!names.every(known) || (names.length > 0 && !names.includes('meta'))) throw foreign(path);
    const meta = root.openDB<unknown, string>({ name: 'meta', keyEncoding: 'ordered-binary' });
    checkFormat(meta, path, names);
    const binary = <V>(name: string) => root.openDB<V, Buffer>({ name, keyEncoding: 'binary' });
    return {
      root,
      /** LMDB's lock file of the environment, beside its data file. */
      lockFile: `${file}-lock`,
      /** Tenant prefix + id -> [name] or [name, tag]; after them the tag index (tagPrefix) -> name. */
      plants: binary<unknown>('plants'),
      /** Tenant (UTF-8) -> plants it holds; tenants holding none are absent. */
      tenants: binary<number>('tenants'),
      tokens: root.openDB<unknown, string>({ name: 'tokens' }),
      webhooks: root.openDB<unknown, string>({ name: 'webhooks' }),
      /** Tenant prefix + subscription id -> true: the tenant's subscriptions. */
      webhookIndex: binary<true>('webhookIndex'),
      /** Tenant prefix + delivery key -> the delivery. */
      deliveries: binary<unknown>('deliveries'),
      /** 1 + tenant prefix + due ms (8 bytes) + delivery key -> true: what the outbox claims from. */
      due: binary<true>('due'),
      /** The format, readiness' probe, and TAG_INDEX_FROM while the tag index is being built. */
      meta,
    };
  } catch (error) {
    void root.close().catch(() => {});
    if (error instanceof StorageOpenError) throw error;
    throw openError(path, `cannot be opened: ${reason(error)}`, error);
  }
}

/** The limits' environment (limits.mdb): a file of its own, never flushed. */
export const openLimitsEnvironment = (dataDir: string): RootDatabase =>
  openFile(dataDir, 'limits.mdb', { noSync: true }).root;

const foreign = (path: string): StorageOpenError =>
  openError(path, 'holds an LMDB environment that plant-store did not write; move it away');

/**
 * Marks a new environment with FORMAT; refuses one marked with another, and one without the mark
 * that holds a database (another process may be between making `meta` and marking it).
 */
function checkFormat(meta: Database<unknown, string>, path: string, names: unknown[]): void {
  const found = meta.get('format') as { store?: unknown; format?: unknown } | undefined;
  const other = names.some((name) => name !== 'meta');
  if (found === undefined ? other : found.store !== FORMAT.store) throw foreign(path);
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

// Keys. A tenant, a tag: UTF-8, whose byte order is code-point order (the tenants' list order).
const SIGN_BIT = 2n ** 63n;
const ID_BYTES = 8;
// Lone surrogates would become U+FFFD in UTF-8 and so merge two tenants into one key.
const LONE_SURROGATE = /\p{Cs}/u;

/** A store's key that must be a string: a caller without types could pass anything. */
export function text(value: string): string {
  if (typeof value !== 'string') throw new TypeError('ids and tenants must be strings');
  return value;
}

export function tenantKey(tenant: string): Buffer {
  // Checked at run time too: a caller without types could pass anything.
  if (typeof tenant !== 'string') throw new TypeError('tenant must be a string');
  if (LONE_SURROGATE.test(tenant)) throw new Error('a tenant name must be well-formed Unicode');
  return Buffer.from(tenant, 'utf8');
}

/** The start of a tenant's keys: its UTF-8 length (2 bytes: `a` is no prefix of `ab`'s), its UTF-8. */
export function tenantPrefix(tenant: string): Buffer {
  const name = tenantKey(tenant);
  const prefix = Buffer.allocUnsafe(2 + name.length);
  prefix.writeUInt16BE(name.length, 0);
  name.copy(prefix, 2);
  return prefix;
}

/** Where the tag index starts in `plants`: a length no tenant's has (keys hold ≤ 1978 bytes). */
export const TAG_INDEX = Buffer.from([0xff, 0xff]);

/** The start of the index keys of a tenant's plants holding `tag`; plantKey of it orders them. */
export const tagPrefix = (prefix: Buffer, tag: string): Buffer =>
  Buffer.concat([TAG_INDEX, prefix, tenantPrefix(tag)]);

/**
 * A plant's key: the tenant's prefix, then the id as 8 big-endian bytes of (id + 2^63), fixed
 * width with the sign bit flipped, so that byte order is numeric order over the whole int64 range.
 */
export function plantKey(prefix: Buffer, id: PlantId): Buffer {
  if (typeof id !== 'bigint') throw new TypeError('id must be a bigint');
  const key = Buffer.allocUnsafe(prefix.length + ID_BYTES);
  prefix.copy(key, 0);
  key.writeBigUInt64BE(BigInt.asUintN(64, id + SIGN_BIT), prefix.length);
  return key;
}

const TWO_32 = 2 ** 32;
// Ids within ±2^53 are read as two 32-bit halves and one BigInt: a page reads 20 to 1000 of them,
// and readBigUInt64BE with a BigInt subtraction costs twice as much (perf: bench/README.md, "What
// the hand-made fast paths save").
const SAFE_HIGH = 2 ** 21;

export function idOf(key: Buffer): PlantId {
  const at = key.length - ID_BYTES;
  const high = (key.readUInt32BE(at) ^ 0x80000000) | 0;
  if (high >= -SAFE_HIGH && high < SAFE_HIGH) {
    return BigInt(high * TWO_32 + key.readUInt32BE(at + 4));
  }
  return key.readBigUInt64BE(at) - SIGN_BIT;
}

/** Above every plant key of the tenant: its prefix and one byte more than an id holds. */
export const prefixEnd = (prefix: Buffer): Buffer =>
  Buffer.concat([prefix, Buffer.alloc(ID_BYTES + 1, 0xff)]);

export const justAbove = (key: Buffer): Buffer => Buffer.concat([key, Buffer.from([0])]);
