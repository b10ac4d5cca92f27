import { toSummary, type ManagedToken, type TokenSummary } from '../../../domain/managed-token.js';
import type { TokenStore } from '../../../ports/token-store.js';
import { text, type LmdbDatabases } from './lmdb-environment.js';
import type { LmdbWriter } from './lmdb-writer.js';
import { byCreation } from '../webhook-record.js';

const TIMES = ['createdAt', 'expiresAt', 'revokedAt', 'lastUsedAt'] as const;
/** A token as stored: its times in epoch ms. */
type TokenRecord = Omit<ManagedToken, 'id' | (typeof TIMES)[number]> &
  Partial<Record<(typeof TIMES)[number], number>>;

function toRecord({ name, tenant, scopes, digest, ...token }: ManagedToken): TokenRecord {
  const record: Record<string, unknown> = { name, tenant, scopes: [...scopes], digest };
  for (const time of TIMES) if (token[time]) record[time] = token[time].getTime();
  return record as TokenRecord;
}

function toToken(
  id: string,
  { name, tenant, scopes, digest, ...times }: TokenRecord,
): ManagedToken {
  const token: Record<string, unknown> = { id, name, tenant, scopes, digest };
  for (const time of TIMES) if (times[time] !== undefined) token[time] = new Date(times[time]);
  return token as unknown as ManagedToken;
}

/** Managed tokens in the environment, by id: a revocation by the CLI is read by every process. */
export class LmdbTokenStore implements TokenStore {
  constructor(
    private readonly dbs: LmdbDatabases,
    private readonly writer: LmdbWriter,
  ) {}

  create(token: ManagedToken): Promise<boolean> {
    const id = text(token.id);
    const record = toRecord(token);
    return this.writer.write(() => {
      if (this.dbs.tokens.doesExist(id)) return false;
      void this.dbs.tokens.put(id, record);
      return true;
    });
  }

  async find(id: string): Promise<ManagedToken | undefined> {
    const record = this.dbs.tokens.get(text(id)) as TokenRecord | undefined;
    return record === undefined ? undefined : toToken(id, record);
  }

  /** Tokens are few (an operator issues them): a read of them all, sorted. */
  async list(tenant?: string): Promise<TokenSummary[]> {
    const found = Array.from(this.dbs.tokens.getRange(), ({ key, value }) =>
      toToken(key, value as TokenRecord),
    ).filter((token) => tenant === undefined || token.tenant === tenant);
    return found.sort(byCreation).map(toSummary);
  }

  revoke(id: string, at: Date): Promise<boolean> {
    return this.writer.write(() => {
      const record = this.dbs.tokens.get(text(id)) as TokenRecord | undefined;
      if (record === undefined) return false;
      if (record.revokedAt === undefined) {
        void this.dbs.tokens.put(id, { ...record, revokedAt: at.getTime() });
      }
      return true;
    });
  }

  /** Records a use (a use no newer than the one recorded changes nothing). */
  async markUsed(id: string, at: Date): Promise<void> {
    await this.writer.write(() => {
      const record = this.dbs.tokens.get(text(id)) as TokenRecord | undefined;
      if (record === undefined) return;
      if (record.lastUsedAt !== undefined && record.lastUsedAt >= at.getTime()) return;
      void this.dbs.tokens.put(id, { ...record, lastUsedAt: at.getTime() });
    });
  }

  async ping(): Promise<void> {
    this.dbs.tokens.get('');
  }
}
