import { isScope } from '../../../domain/caller.js';
import { toSummary, type ManagedToken, type TokenSummary } from '../../../domain/managed-token.js';
import type { TokenStore } from '../../../ports/token-store.js';
import { redisCall, script, type RedisClient } from './redis-client.js';

// Each script touches one key (the token's hash), so each is atomic on a cluster too. ARGV:
// create: field, value, ... (1 stored, 0 id taken); revoke: revokedAt, the first kept; markUsed:
// lastUsedAt, the latest kept. Revoke and markUsed answer 0 when there is no such token.
const CREATE_LUA = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1`;
const REVOKE_LUA = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSETNX', KEYS[1], 'revokedAt', ARGV[1])
return 1`;
const MARK_USED_LUA = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local last = tonumber(redis.call('HGET', KEYS[1], 'lastUsedAt') or '0')
if tonumber(ARGV[1]) > last then redis.call('HSET', KEYS[1], 'lastUsedAt', ARGV[1]) end
return 1`;

const ms = (date: Date): string => String(date.getTime());
const date = (text: string): Date => new Date(Number(text));

function fromHash(id: string, hash: Record<string, string>): ManagedToken | undefined {
  if (hash.digest === undefined) return undefined;
  const times = (['expiresAt', 'revokedAt', 'lastUsedAt'] as const).filter((time) => hash[time]);
  return {
    id,
    name: hash.name ?? '',
    tenant: hash.tenant ?? '',
    scopes: (JSON.parse(hash.scopes ?? '[]') as unknown[]).filter(isScope),
    digest: hash.digest,
    createdAt: date(hash.createdAt!),
    ...Object.fromEntries(times.map((time) => [time, date(hash[time]!)])),
  };
}

/**
 * Managed tokens in Redis: one hash a token, `<prefix>token:{<id>}`, and a sorted set `<prefix>tokens`
 * of ids by creation time. Written before indexed: a crash between leaves an unlisted token never
 * shown to anyone, never a listed one that does not exist.
 */
export class RedisTokenStore implements TokenStore {
  private readonly scripts;

  constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
  ) {
    this.scripts = {
      create: script<number>(client, 'tokenCreate', 1, CREATE_LUA),
      revoke: script<number>(client, 'tokenRevoke', 1, REVOKE_LUA),
      markUsed: script<number>(client, 'tokenMarkUsed', 1, MARK_USED_LUA),
    };
  }

  async create(token: ManagedToken): Promise<boolean> {
    const fields = [
      ['name', token.name],
      ['tenant', token.tenant],
      ['scopes', JSON.stringify(token.scopes)],
      ['digest', token.digest],
      ['createdAt', ms(token.createdAt)],
      ...(token.expiresAt ? [['expiresAt', ms(token.expiresAt)]] : []),
    ].flat() as string[];
    const stored = await redisCall(this.scripts.create(this.key(token.id), ...fields));
    if (stored !== 1) return false;
    await redisCall(this.client.zadd(`${this.prefix}tokens`, ms(token.createdAt), token.id));
    return true;
  }

  async find(id: string): Promise<ManagedToken | undefined> {
    return fromHash(id, await redisCall(this.client.hgetall(this.key(id))));
  }

  async list(tenant?: string): Promise<TokenSummary[]> {
    const ids = await redisCall(this.client.zrange(`${this.prefix}tokens`, '0', '-1'));
    // One HGETALL each: on a cluster the hashes live in different slots, so no pipeline.
    const tokens = await Promise.all(ids.map((id) => this.find(id)));
    return tokens
      .filter((token): token is ManagedToken => token !== undefined)
      .filter((token) => tenant === undefined || token.tenant === tenant)
      .map(toSummary);
  }

  async revoke(id: string, at: Date): Promise<boolean> {
    return (await redisCall(this.scripts.revoke(this.key(id), ms(at)))) === 1;
  }

  /** A read, as lookups are: a Redis that refuses writes (MISCONF refuses even PING) still serves tokens. */
  async ping(): Promise<void> {
    await redisCall(this.client.exists(`${this.prefix}token:{0}`));
  }

  async markUsed(id: string, at: Date): Promise<void> {
    await redisCall(this.scripts.markUsed(this.key(id), ms(at)));
  }

  private key(id: string): string {
    // Ids are hex from mintToken; anything else could move the hash tag.
    if (!/^[0-9a-f]{1,64}$/.test(id)) throw new Error('a token id must be hex digits');
    return `${this.prefix}token:{${id}}`;
  }
}
