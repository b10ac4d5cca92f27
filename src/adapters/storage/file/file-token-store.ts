import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { lock } from 'proper-lockfile';
import { isScope } from '../../../domain/caller.js';
import { PlantError } from '../../../domain/errors.js';
import { toSummary, type ManagedToken, type TokenSummary } from '../../../domain/managed-token.js';
import type { TokenStore } from '../../../ports/token-store.js';
import { checkFile, MAX_FILE_BYTES, readBounded } from './bounded-read.js';
import { writeAtomically } from './locked-file.js';

type Row = Record<keyof ManagedToken, unknown>;
/**
 * The lock is proper-lockfile's: a directory made atomically beside the file, whose mtime its
 * holder refreshes every 5 s, so that the lock of a command that died is taken over once it is
 * 10 s old (and a live one never is). A command waits about a minute for its turn, polling every
 * 10 to 200 ms with jitter: enough for well over a hundred commands at once.
 */
const LOCK_OPTIONS = {
  realpath: false,
  stale: 10_000,
  retries: { retries: 400, factor: 1.5, minTimeout: 10, maxTimeout: 100, randomize: true },
};

const toRow = (token: ManagedToken) => ({
  ...token,
  createdAt: token.createdAt.toISOString(),
  expiresAt: token.expiresAt?.toISOString(),
  revokedAt: token.revokedAt?.toISOString(),
  lastUsedAt: undefined,
});

function date(value: unknown): Date | undefined {
  if (value === undefined || value === null) return undefined;
  const parsed = new Date(String(value));
  if (Number.isNaN(parsed.getTime())) throw new Error('a date is invalid');
  return parsed;
}

function fromRow(row: Row, lastUsed: Date | undefined): ManagedToken {
  const { id, name, tenant, scopes, digest } = row;
  if (typeof id !== 'string' || typeof name !== 'string' || typeof tenant !== 'string') {
    throw new Error('an entry lacks its id, name or tenant');
  }
  if (typeof digest !== 'string' || !Array.isArray(scopes) || !scopes.every(isScope)) {
    throw new Error(`entry ${id} lacks its digest or scopes`);
  }
  const token: ManagedToken = { id, name, tenant, scopes, digest, createdAt: date(row.createdAt)! };
  const expiresAt = date(row.expiresAt);
  const revokedAt = date(row.revokedAt);
  return {
    ...token,
    ...(expiresAt && { expiresAt }),
    ...(revokedAt && { revokedAt }),
    ...(lastUsed && { lastUsedAt: lastUsed }),
  };
}

/**
 * Managed tokens in a JSON file, so that the `plant-store tokens` command (one process) and the
 * server on the memory storage (another) share them. Only the command writes the token file,
 * under a lock file, by atomic rename; servers write last-use times to a file of their own, so a
 * server can never overwrite a revocation. Files are created readable by their owner only.
 */
export class FileTokenStore implements TokenStore {
  private cache:
    { key: string; tokens?: Map<string, ManagedToken>; broken?: PlantError } | undefined;
  /** Last-use writes of this process, one at a time. */
  private marking: Promise<void> = Promise.resolve();

  constructor(private readonly path: string) {}

  private get usedPath(): string {
    return `${this.path}.last-used`;
  }

  /** A safe message for callers (it may reach an HTTP answer); the cause names the file and the reason. */
  private unavailable(error: unknown): PlantError {
    const reason = error instanceof Error ? error.message : String(error);
    const unavailable = new PlantError('storage-unavailable', 'storage is unavailable');
    unavailable.cause = new Error(
      `the token file ${this.path} (PLANT_STORE_TOKEN_FILE) cannot be used: ${reason}`,
    );
    return unavailable;
  }

  /**
   * The parsed file, re-read only when it changed (a rename gives it a new inode). A file broken
   * by its content, size or kind stays broken until it changes, so it is not read again either:
   * a probe or a request against it costs two stats. One that is not a regular file or is larger
   * than MAX_FILE_BYTES is refused by its stat, unread.
   */
  private async load(): Promise<Map<string, ManagedToken>> {
    let file, used;
    try {
      [file, used] = await Promise.all([
        stat(this.path).catch(missing),
        stat(this.usedPath).catch(missing),
      ]);
    } catch (error) {
      throw this.unavailable(error);
    }
    const key = [file, used]
      .map((s) => s && `${s.dev}:${s.ino}:${s.mtimeMs}:${s.ctimeMs}:${s.size}`)
      .join('|');
    if (this.cache?.key === key) {
      if (this.cache.broken) throw this.cache.broken;
      return this.cache.tokens!;
    }
    try {
      if (file) checkFile(file, MAX_FILE_BYTES);
      const rows = file ? parseRows(await readBounded(this.path)) : [];
      const lastUsed = used ? await this.readUsed() : {};
      const tokens = new Map(
        rows.map((row) => [row.id as string, fromRow(row, lastUse(lastUsed[row.id as string]))]),
      );
      this.cache = { key, tokens };
      return tokens;
    } catch (error) {
      const unavailable = this.unavailable(error);
      // Errors with a code (EACCES, EMFILE, ...) may pass: only a broken file is remembered.
      if ((error as NodeJS.ErrnoException).code === undefined) {
        this.cache = { key, broken: unavailable };
      }
      throw unavailable;
    }
  }

  private async readUsed(): Promise<Record<string, string>> {
    // Last-use times are informative: an unreadable file counts as empty, never as an outage.
    try {
      const parsed: unknown = JSON.parse(
        // Only servers write it: a symlink there is someone else's, never followed.
        await readBounded(this.usedPath, { follow: false }),
      );
      return typeof parsed === 'object' && parsed !== null
        ? (parsed as Record<string, string>)
        : {};
    } catch {
      return {};
    }
  }

  /** Read-modify-write of the token file under its lock; `change` resolves whether to write. */
  private async update(change: (tokens: Map<string, ManagedToken>) => boolean): Promise<boolean> {
    let release: () => Promise<void>;
    // Set when the lock was lost (its directory removed or taken over): nothing may be written then.
    let lost: Error | undefined;
    try {
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
      release = await lock(this.path, {
        ...LOCK_OPTIONS,
        onCompromised: (error) => (lost = error),
      });
    } catch (error) {
      throw this.unavailable(
        (error as NodeJS.ErrnoException).code === 'ELOCKED'
          ? new Error('other plant-store commands held its lock for a minute; try again')
          : error,
      );
    }
    try {
      this.cache = undefined;
      const tokens = new Map(await this.load());
      if (!change(tokens)) return false;
      const rows = [...tokens.values()].map(toRow);
      if (lost !== undefined) throw lost;
      await writeAtomically(
        this.path,
        `${JSON.stringify({ version: 1, tokens: rows }, null, 2)}\n`,
      );
      return true;
    } catch (error) {
      throw error instanceof PlantError ? error : this.unavailable(error);
    } finally {
      await release().catch(() => {});
    }
  }

  async create(token: ManagedToken): Promise<boolean> {
    return this.update((tokens) => {
      if (tokens.has(token.id)) return false;
      tokens.set(token.id, token);
      return true;
    });
  }

  async find(id: string): Promise<ManagedToken | undefined> {
    const token = (await this.load()).get(id);
    // A copy: the parsed file is shared by every lookup until it changes.
    return token && { ...token, scopes: [...token.scopes] };
  }

  async list(tenant?: string): Promise<TokenSummary[]> {
    return [...(await this.load()).values()]
      .filter((token) => tenant === undefined || token.tenant === tenant)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .map((token) => toSummary({ ...token, scopes: [...token.scopes] }));
  }

  async revoke(id: string, at: Date): Promise<boolean> {
    let found = false;
    await this.update((tokens) => {
      const token = tokens.get(id);
      found = token !== undefined;
      if (token === undefined || token.revokedAt !== undefined) return false;
      tokens.set(id, { ...token, revokedAt: at });
      return true;
    });
    return found;
  }

  /** Reads the file (only when it changed): a corrupt or unreadable one rejects. */
  async ping(): Promise<void> {
    await this.load();
  }

  async markUsed(id: string, at: Date): Promise<void> {
    const marked = this.marking.then(() => this.writeUsed(id, at));
    this.marking = marked.catch(() => {});
    return marked;
  }

  private async writeUsed(id: string, at: Date): Promise<void> {
    try {
      if (!(await this.load()).has(id)) return;
      const used = await this.readUsed();
      const previous = used[id] === undefined ? undefined : new Date(used[id]);
      if (previous !== undefined && previous >= at) return;
      used[id] = at.toISOString();
      await writeAtomically(this.usedPath, `${JSON.stringify(used)}\n`);
    } catch (error) {
      throw error instanceof PlantError ? error : this.unavailable(error);
    }
  }
}

/** A recorded last use, or undefined when absent or unreadable (it is informative only). */
function lastUse(value: unknown): Date | undefined {
  const parsed = typeof value === 'string' ? new Date(value) : undefined;
  return parsed && !Number.isNaN(parsed.getTime()) ? parsed : undefined;
}

function missing(error: NodeJS.ErrnoException): undefined {
  if (error.code === 'ENOENT') return undefined;
  throw error;
}

function parseRows(text: string): Row[] {
  const parsed = JSON.parse(text) as { version?: unknown; tokens?: unknown };
  if (parsed?.version !== 1 || !Array.isArray(parsed.tokens)) {
    throw new Error('it is not a version 1 token file');
  }
  return parsed.tokens as Row[];
}
