// The token and webhook files of earlier versions (the memory storage kept them beside the
// process), taken into the durable storage once, through its ports, then renamed.
import { lstat, readFile, rename } from 'node:fs/promises';
import { isScope } from '../../domain/caller.js';
import { checkTenant } from '../../domain/tenant.js';
import { SUBSCRIPTION_ID } from '../../application/webhook-ids.js';
import type { ManagedToken } from '../../domain/managed-token.js';
import type { WebhookSubscription } from '../../domain/webhook.js';
import type { TokenStore } from '../../ports/token-store.js';
import type { WebhookSubscriptions } from '../../ports/webhook-subscriptions.js';
import { fromRecord } from './webhook-record.js';
import { StorageOpenError } from './storage-open-error.js';

/** Where earlier versions kept them (PLANT_STORE_TOKEN_FILE, PLANT_STORE_WEBHOOK_FILE). */
export interface LegacyFiles {
  tokens: string;
  webhooks: string;
}

/** What a file becomes once taken in, so that it is not taken in twice. */
export const IMPORTED_SUFFIX = '.imported';

// The ids earlier versions made (mintToken): any other could never be presented.
const TOKEN_ID = /^[0-9a-f]{16}$/;

// Earlier versions refused larger files too: tens of thousands of tokens or subscriptions.
const MAX_FILE_BYTES = 16 * 1024 * 1024;

function date(value: unknown): Date | undefined {
  if (value === undefined || value === null) return undefined;
  const parsed = new Date(String(value));
  if (Number.isNaN(parsed.getTime())) throw new Error('a date is invalid');
  return parsed;
}

/** A token file's row (version 1: the token store of the memory storage up to this version). */
function tokenFromRow(row: Record<string, unknown>, lastUsed: unknown): ManagedToken {
  const { id, name, tenant, scopes, digest } = row;
  if (typeof id !== 'string' || typeof name !== 'string' || typeof tenant !== 'string') {
    throw new Error('an entry lacks its id, name or tenant');
  }
  // What every door checks (a store's keys are bounded: a longer id or tenant would fail a write).
  if (!TOKEN_ID.test(id)) throw new Error("an entry's id is not 16 hex digits");
  const badTenant = checkTenant(tenant);
  if (badTenant !== undefined) throw new Error(`entry ${id}'s tenant ${badTenant}`);
  if (typeof digest !== 'string' || !Array.isArray(scopes) || !scopes.every(isScope)) {
    throw new Error(`entry ${id} lacks its digest or scopes`);
  }
  const createdAt = date(row.createdAt) ?? new Date(0);
  const expiresAt = date(row.expiresAt);
  const revokedAt = date(row.revokedAt);
  // Last use is informative: an unreadable one is left out.
  const lastUsedAt = typeof lastUsed === 'string' ? date(lastUsed) : undefined;
  return {
    ...{ id, name, tenant, scopes, digest, createdAt },
    ...(expiresAt && { expiresAt }),
    ...(revokedAt && { revokedAt }),
    ...(lastUsedAt && { lastUsedAt }),
  };
}

/** The file's JSON, or undefined when there is none; throws when it is not a readable regular file. */
async function readJson(path: string): Promise<Record<string, unknown> | undefined> {
  const found = await lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (found === undefined) return undefined;
  if (!found.isFile()) throw new Error('it is not a regular file');
  if (found.size > MAX_FILE_BYTES) throw new Error(`it is larger than ${MAX_FILE_BYTES} bytes`);
  const parsed = JSON.parse(await readFile(path, 'utf8')) as unknown;
  if (typeof parsed !== 'object' || parsed === null) throw new Error('it holds no JSON object');
  return parsed as Record<string, unknown>;
}

async function readTokens(path: string): Promise<ManagedToken[] | undefined> {
  const file = await readJson(path);
  if (file === undefined) return undefined;
  if (file.version !== 1 || !Array.isArray(file.tokens)) {
    throw new Error('it is not a version 1 token file');
  }
  // Servers kept last-use times apart, in `<file>.last-used`.
  const used = ((await readJson(`${path}.last-used`).catch(() => undefined)) ?? {}) as Record<
    string,
    unknown
  >;
  return (file.tokens as Record<string, unknown>[]).map((row) =>
    tokenFromRow(row, used[row.id as string]),
  );
}

async function readWebhooks(path: string): Promise<WebhookSubscription[] | undefined> {
  const file = await readJson(path);
  if (file === undefined) return undefined;
  if (!Array.isArray(file.webhooks)) throw new Error('it is not a webhook file');
  return (file.webhooks as Record<string, unknown>[]).map((row) => {
    const subscription = fromRecord(row);
    if (!SUBSCRIPTION_ID.test(subscription.id)) {
      throw new Error("a subscription's id is not wh_ and 16 hex digits");
    }
    const badTenant = checkTenant(subscription.tenant);
    if (badTenant !== undefined) {
      throw new Error(`subscription ${subscription.id}'s tenant ${badTenant}`);
    }
    return subscription;
  });
}

/** Renames the file; false when another process (a worker) renamed it first. */
async function retire(path: string): Promise<boolean> {
  try {
    await rename(path, `${path}${IMPORTED_SUFFIX}`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  await rename(`${path}.last-used`, `${path}.last-used${IMPORTED_SUFFIX}`).catch(() => {});
  return true;
}

/** One legacy file: read, each entry added (false: already there), renamed, told. */
async function takeIn<T>(
  file: { path: string; variable: string; what: string },
  read: (path: string) => Promise<T[] | undefined>,
  add: (entry: T) => Promise<boolean>,
  tell: (line: string) => void,
): Promise<void> {
  let entries: T[] | undefined;
  try {
    entries = await read(file.path);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new StorageOpenError(
      `the file ${file.path} of an earlier version`,
      file.variable,
      `cannot be taken in (${reason}); repair it or move it away`,
      { cause: error },
    );
  }
  if (entries === undefined) return;
  let added = 0;
  for (const entry of entries) if (await add(entry)) added++;
  if (!(await retire(file.path))) return;
  const present = entries.length - added;
  tell(
    `took ${added} ${file.what} from ${file.path} into the storage` +
      (present > 0 ? ` (${present} were there already)` : '') +
      `; the file is renamed ${file.path}${IMPORTED_SUFFIX} and no longer read`,
  );
}

/**
 * Takes an existing legacy token file and webhook file into the opened stores (TokenStore.create,
 * WebhookSubscriptions.add: one already there by its id is kept as it is), then renames each to
 * `<file>.imported` and tells the operator in one line. Adding first and renaming after makes it
 * safe to run again after a crash between the two, and in several workers at once: the one whose
 * rename wins tells. A file that cannot be read fails the start with its path, left untouched.
 */
export async function takeInLegacyFiles(
  stores: { tokens: TokenStore; webhooks?: WebhookSubscriptions },
  files: LegacyFiles,
  tell: (line: string) => void,
): Promise<void> {
  const { tokens, webhooks } = stores;
  await takeIn(
    { path: files.tokens, variable: 'PLANT_STORE_TOKEN_FILE', what: 'managed tokens' },
    readTokens,
    async (token) => {
      const created = await tokens.create(token);
      if (created && token.lastUsedAt) await tokens.markUsed(token.id, token.lastUsedAt);
      return created;
    },
    tell,
  );
  if (webhooks === undefined) return;
  await takeIn(
    { path: files.webhooks, variable: 'PLANT_STORE_WEBHOOK_FILE', what: 'webhook subscriptions' },
    readWebhooks,
    (subscription) => webhooks.add(subscription),
    tell,
  );
}
