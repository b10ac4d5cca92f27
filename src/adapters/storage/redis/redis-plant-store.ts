import { newEventId } from '../../../application/webhook-ids.js';
import type { PlantId } from '../../../domain/plant-id.js';
import { DEFAULT_MAX_PLANTS_PER_TENANT, plantQuotaReached } from '../../../domain/plant-quota.js';
import { firstById, type StoredPlant } from '../../../domain/plant.js';
import { compareTenants } from '../../../domain/tenant.js';
import { eventBody, type PlantEvent } from '../../../domain/webhook.js';
import type { Logger } from '../../../ports/logger.js';
import type { ImportOutcome, PlantStore } from '../../../ports/plant-store.js';
import { redisCall, script, type RedisClient } from './redis-client.js';
import {
  decodeId,
  decodeMember,
  encodeId,
  encodeMember,
  plantsKey,
  tagsKey,
  webhookKeys,
} from './redis-plant-codec.js';

// Every writing script starts with this: `add` and `remove` keep a plant's member (KEYS[1]) and its
// tag index entry (KEYS[2]) together, so neither exists without the other.
const INDEX_LUA = `
local function entry(member)
  local tag = cjson.decode(string.sub(member, 18)).tag
  if type(tag) ~= 'string' then return nil end
  return string.gsub(tag, '.', function(c) return string.format('%02x', string.byte(c)) end) .. ':' .. member
end
local function add(member)
  redis.call('ZADD', KEYS[1], 0, member)
  local e = entry(member)
  if e then redis.call('ZADD', KEYS[2], 0, e) end
end
local function remove(member)
  redis.call('ZREM', KEYS[1], member)
  local e = entry(member)
  if e then redis.call('ZREM', KEYS[2], e) end
end
local function held(id)
  return redis.call('ZRANGE', KEYS[1], '[' .. id .. ':', '(' .. id .. ';', 'BYLEX', 'LIMIT', 0, 1)[1]
end
`;

// KEYS: plants, tag index, plant.created targets, outbox, deliveries; ARGV: encoded id, member, most
// plants (0: no quota), event id ('' for none), now (ms), body. 1 stored, 0 id taken, -1 quota.
// One script, so that racing inserts of one id store one plant and cannot pass the quota, and a
// stored plant always has its deliveries.
const INSERT_LUA = `${INDEX_LUA}
if held(ARGV[1]) then return 0 end
local max = tonumber(ARGV[3])
if max > 0 and redis.call('ZCARD', KEYS[1]) >= max then return -1 end
add(ARGV[2])
if ARGV[4] ~= '' then
  for _, sub in ipairs(redis.call('SMEMBERS', KEYS[3])) do
    local key = ARGV[4] .. ':' .. sub
    redis.call('ZADD', KEYS[4], ARGV[5], key)
    redis.call('HSET', KEYS[5], key, cjson.encode({sub = sub, event = ARGV[4], type = 'plant.created', body = ARGV[6], at = ARGV[5], attempts = 0}))
  end
end
return 1`;

const DELETE_LUA = `${INDEX_LUA}
local member = held(ARGV[1])
if not member then return 0 end
remove(member)
return 1`;

// ARGV: most plants, '1' to overwrite, then encoded id and member of each plant; one code a plant
// (IMPORT_OUTCOMES' index). encodeMember writes one form a plant: an equal member is the same plant.
const IMPORT_LUA = `${INDEX_LUA}
local max = tonumber(ARGV[1])
local count = redis.call('ZCARD', KEYS[1])
local out = {}
for i = 3, #ARGV, 2 do
  local member, code = held(ARGV[i]), 0
  if member == ARGV[i + 1] then code = 1
  elseif member and ARGV[2] == '1' then remove(member); add(ARGV[i + 1]); code = 2
  elseif member then code = 3
  elseif max > 0 and count >= max then code = 4
  else add(ARGV[i + 1]); count = count + 1 end
  out[#out + 1] = code
end
return out`;

// ARGV: lower bound ('-' or `(<id>;`), most plants; resolves how many, and the last's encoded id. The
// migration's step: ZADD of a held entry changes nothing, so steps may repeat and run in parallel.
const INDEX_TAGS_LUA = `${INDEX_LUA}
local members = redis.call('ZRANGE', KEYS[1], ARGV[1], '+', 'BYLEX', 'LIMIT', 0, tonumber(ARGV[2]))
for _, member in ipairs(members) do add(member) end
if #members == 0 then return {0} end
return {#members, string.sub(members[#members], 1, 16)}`;

// KEYS: the migration's progress; 0 (setting nothing) when it is 'done'.
const PROGRESS_LUA = `
if redis.call('GET', KEYS[1]) == 'done' then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
return 1`;

const IMPORT_OUTCOMES = ['stored', 'present', 'replaced', 'conflict', 'quota'] as const;

/** `signal` stops the migration between two steps (rejecting); `batch`: plants a step indexes. */
export type IndexTagsOptions = { logger?: Logger; signal?: AbortSignal; batch?: number };

/** The tenants one SCAN pass read, sorted, and how many of them were paged out already. */
type Walk = { tenants: string[]; next: number; timer?: NodeJS.Timeout };

// With a shebang and no flags a script may write, so Redis 7 refuses it exactly while writes are
// refused (OOM, MISCONF, READONLY); it writes nothing.
const WRITABLE_LUA = `#!lua
return 1`;

// Lone surrogates would become U+FFFD in UTF-8 and so merge two tenants into one key.
const LONE_SURROGATE = /\p{Cs}/u;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** Every operation of the plant store tells refused writes from an outage (see redisCall). */
const call = <T>(command: Promise<T>): Promise<T> => redisCall(command, true);

/**
 * Plants in Redis: one sorted set per tenant, all scores 0, members `<encoded id>:<JSON>`, and its
 * tag index in the same slot (redis-plant-codec.ts). Each operation is one atomic command or script.
 */
export class RedisPlantStore implements PlantStore {
  /** Walks through the tenants, by the last tenant of the page each served (see tenants). */
  private readonly walks = new Map<string, Walk>();
  private readonly scripts;

  constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
    private readonly maxPlants: number = DEFAULT_MAX_PLANTS_PER_TENANT,
  ) {
    if (/[{}]/.test(prefix)) throw new Error('the Redis key prefix must not contain { or }');
    this.scripts = {
      insert: script<number>(client, 'plantInsert', 5, INSERT_LUA),
      delete: script<number>(client, 'plantDelete', 2, DELETE_LUA),
      import: script<number[]>(client, 'plantImport', 2, IMPORT_LUA),
      indexTags: script<[number, string?]>(client, 'plantIndexTags', 2, INDEX_TAGS_LUA),
      progress: script<number>(client, 'plantIndexProgress', 1, PROGRESS_LUA),
      writable: script<number>(client, 'plantWritable', 0, WRITABLE_LUA),
    };
  }

  async insert(tenant: string, plant: StoredPlant, event?: PlantEvent): Promise<boolean> {
    const { created, outbox, deliveries } = webhookKeys(this.prefix, tenant);
    const keys = [...this.keys(tenant), created, outbox, deliveries];
    const [eventId, body] = event === undefined ? ['', ''] : [newEventId(), eventBody(event)];
    const args = [encodeId(plant.id), encodeMember(plant), String(this.maxPlants), eventId];
    const stored = await call(this.scripts.insert(...keys, ...args, String(Date.now()), body));
    if (stored === -1) throw plantQuotaReached(this.maxPlants);
    return stored === 1;
  }

  /** The id's members run from `[<id>:` to `(<id>;` (';' follows ':'). */
  async get(tenant: string, id: PlantId): Promise<StoredPlant | undefined> {
    const hex = encodeId(id);
    const [member] = await this.range(this.key(tenant), `[${hex}:`, `(${hex};`, 1);
    return member === undefined ? undefined : decodeMember(member);
  }

  /**
   * One ZRANGE BYLEX from just above `after`: of the tenant's plants, or of each tag's entries in
   * the index, `<tag hex>:` to `<tag hex>;` (hex holds neither ':' nor ';', so no other tag's
   * entries, the empty tag's `:...` included, fall in it).
   */
  async list(
    tenant: string,
    after: PlantId | undefined,
    limit: number,
    tags?: readonly string[],
  ): Promise<StoredPlant[]> {
    if (limit <= 0) return [];
    const [key, index] = this.keys(tenant);
    const above = after === undefined ? undefined : `${encodeId(after)};`;
    if (tags === undefined) {
      return (await this.range(key, above ? `(${above}` : '-', '+', limit)).map(decodeMember);
    }
    const pages = await Promise.all(
      tags.map(async (tag) => {
        const hex = Buffer.from(tag, 'utf8').toString('hex');
        const from = above ? `(${hex}:${above}` : `[${hex}:`;
        const entries = await this.range(index, from, `(${hex};`, limit);
        // An entry is the tag's hex, a colon, then the plant's member.
        return entries.map((entry) => decodeMember(entry.slice(hex.length + 1)));
      }),
    );
    return firstById(pages, limit);
  }

  private range(key: string, min: string, max: string, limit: number): Promise<string[]> {
    return call(this.client.zrange(key, min, max, 'BYLEX', 'LIMIT', 0, limit));
  }

  async delete(tenant: string, id: PlantId): Promise<boolean> {
    return (await call(this.scripts.delete(...this.keys(tenant), encodeId(id)))) === 1;
  }

  /**
   * One SCAN pass on every master reads every tenant above `after`, sorted (Redis orders nothing);
   * the pages that continue from this one are served from that reading, kept (8 exports at once)
   * until its last page or a minute without one: an export costs one pass.
   */
  async tenants(after: string | undefined, limit: number): Promise<string[]> {
    if (limit <= 0) return [];
    let walk = after === undefined ? undefined : this.walks.get(after);
    if (walk === undefined) walk = { tenants: await this.scanTenants(after), next: 0 };
    else this.walks.delete(after!);
    clearTimeout(walk.timer);
    const page = walk.tenants.slice(walk.next, walk.next + limit);
    walk.next += page.length;
    // A full page is followed by another call, even when the walk has nothing left.
    if (page.length < limit) return page;
    if (this.walks.size >= 8) {
      const [oldest, dropped] = this.walks.entries().next().value!;
      clearTimeout(dropped.timer);
      this.walks.delete(oldest);
    }
    const last = page.at(-1)!;
    walk.timer = setTimeout(() => this.walks.delete(last), 60_000).unref();
    this.walks.set(last, walk);
    return page;
  }

  /** Every tenant above `after` holding plants, in code-point order: one SCAN pass. */
  private async scanTenants(after: string | undefined): Promise<string[]> {
    const match = `${this.prefix.replace(/[*?[\]\\]/g, '\\$&')}{*}:plants`;
    const start = this.prefix.length + 1;
    const found: string[] = [];
    const nodes = 'nodes' in this.client ? this.client.nodes('master') : [this.client];
    for (const node of nodes) {
      let cursor = '0';
      do {
        const [next, keys] = await call(node.scan(cursor, 'MATCH', match, 'COUNT', 1000));
        cursor = next;
        for (const key of keys) {
          const encoded = key.slice(start, -'}:plants'.length);
          if (!BASE64URL.test(encoded)) continue;
          const tenant = Buffer.from(encoded, 'base64url').toString('utf8');
          if (after === undefined || compareTenants(tenant, after) > 0) found.push(tenant);
        }
      } while (cursor !== '0');
    }
    // SCAN may return a key twice (a rehash during the pass).
    return [...new Set(found)].sort(compareTenants);
  }

  /**
   * Builds the tag index of the plants stored before there was one, once: `<prefix>tag-index` holds
   * the progress (`<tenant as base64url>:<encoded id>` of the last plant indexed), so a restart
   * continues there, then `done`. Writes meanwhile index themselves; instances may run it at once.
   */
  async indexTags({ logger, signal, batch = 1000 }: IndexTagsOptions = {}): Promise<void> {
    const marker = `${this.prefix}tag-index`;
    const progress = await redisCall(this.client.get(marker));
    if (progress === 'done') return;
    const [encoded, from] = progress?.split(':') ?? [];
    const first = encoded === undefined ? undefined : Buffer.from(encoded, 'base64url').toString();
    const tenants = await this.scanTenants(first);
    if (first !== undefined) tenants.unshift(first);
    // A new store (no tenant) only gets its marker.
    const say = tenants.length > 0 ? logger : undefined;
    say?.info(
      {
        tenants: tenants.length,
        resumeAfter: first === undefined ? undefined : { tenant: first, id: decodeId(from!) },
      },
      'indexing the tags of the plants stored before the tag index',
    );
    let plants = 0;
    for (const [i, tenant] of tenants.entries()) {
      let bound = i === 0 && from !== undefined ? `(${from};` : '-';
      for (;;) {
        signal?.throwIfAborted();
        const [count, last] = await call(
          this.scripts.indexTags(...this.keys(tenant), bound, String(batch)),
        );
        if (last === undefined) break;
        plants += count;
        bound = `(${last};`;
        const at = `${Buffer.from(tenant).toString('base64url')}:${last}`;
        if ((await call(this.scripts.progress(marker, at))) === 0) {
          say?.info({ plants }, 'the tag index was built by another instance');
          return;
        }
        say?.debug({ tenant, plants }, 'indexing tags');
      }
    }
    await call(this.scripts.progress(marker, 'done'));
    say?.info({ tenants: tenants.length, plants }, 'the tag index is built');
  }

  async importBatch(
    tenant: string,
    plants: readonly StoredPlant[],
    overwrite: boolean,
  ): Promise<ImportOutcome[]> {
    if (plants.length === 0) return [];
    const args = [String(this.maxPlants), overwrite ? '1' : '0'];
    for (const plant of plants) args.push(encodeId(plant.id), encodeMember(plant));
    const codes = await call(this.scripts.import(...this.keys(tenant), ...args));
    return codes.map((code) => IMPORT_OUTCOMES[code]!);
  }

  /** A script Redis runs only while it takes writes; a PING for a Redis before 7 (no flags). */
  async ping(): Promise<void> {
    try {
      await call(this.scripts.writable());
    } catch (error) {
      if (!(error instanceof Error) || !/compiling script/.test(error.message)) throw error;
      await call(this.client.ping());
    }
  }

  private key(tenant: string): string {
    if (LONE_SURROGATE.test(tenant)) throw new Error('a tenant name must be well-formed Unicode');
    return plantsKey(this.prefix, tenant);
  }

  /** The tenant's plants and tag index: KEYS[1] and KEYS[2] of every script. */
  private keys(tenant: string): [string, string] {
    return [this.key(tenant), tagsKey(this.prefix, tenant)];
  }
}
