import type { Result } from 'ioredis';
import { newEventId } from '../../../application/webhook-ids.js';
import type { PlantId } from '../../../domain/plant-id.js';
import { DEFAULT_MAX_PLANTS_PER_TENANT, plantQuotaReached } from '../../../domain/plant-quota.js';
import type { StoredPlant } from '../../../domain/plant.js';
import { compareTenants } from '../../../domain/tenant.js';
import { eventBody, type PlantEvent } from '../../../domain/webhook.js';
import type { ImportOutcome, PlantStore } from '../../../ports/plant-store.js';
import { redisCall, type RedisClient } from './redis-client.js';
import {
  afterBound,
  decodeMember,
  encodeId,
  encodeMember,
  idRange,
  plantsKey,
} from './redis-plant-codec.js';
import { webhookKeys } from './redis-webhook-keys.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /**
     * KEYS: the tenant's plants, plant.created targets, outbox, deliveries; ARGV: encoded id, member,
     * most plants (0: no quota), event id ('' for none), now (ms), body. 1 when stored, 0 when the
     * id is taken, -1 when the tenant holds its quota.
     */
    plantInsert(...keysThenArgs: string[]): Result<number, Context>;
    /**
     * KEYS: the tenant's plants; ARGV: most plants (0: no quota), '1' to overwrite, then encoded id
     * and member of each plant. One code per plant: IMPORT_OUTCOMES' index.
     */
    plantImport(plants: string, ...args: string[]): Result<number[], Context>;
    /** Stores nothing; refused (OOM, MISCONF, READONLY) exactly when writes are (Redis 7). */
    plantWritable(): Result<number, Context>;
  }
}

// Check and add in one script, so that of racing inserts of one id exactly one stores its plant,
// and racing inserts of a tenant at its quota cannot pass it (ZCARD is O(1)); the event goes into
// the outbox of each enabled subscription in the same script (one slot), so a stored plant always
// has its deliveries. A tenant without subscriptions costs one empty SMEMBERS.
const INSERT_LUA = `
if #redis.call('ZRANGE', KEYS[1], '[' .. ARGV[1] .. ':', '(' .. ARGV[1] .. ';', 'BYLEX', 'LIMIT', 0, 1) > 0 then
  return 0
end
local max = tonumber(ARGV[3])
if max > 0 and redis.call('ZCARD', KEYS[1]) >= max then return -1 end
redis.call('ZADD', KEYS[1], 0, ARGV[2])
if ARGV[4] ~= '' then
  for _, sub in ipairs(redis.call('SMEMBERS', KEYS[2])) do
    local key = ARGV[4] .. ':' .. sub
    redis.call('ZADD', KEYS[3], ARGV[5], key)
    redis.call('HSET', KEYS[4], key, cjson.encode({sub = sub, event = ARGV[4], type = 'plant.created', body = ARGV[6], at = ARGV[5], attempts = 0}))
  end
end
return 1`;

// A whole batch in one script (one round trip, one slot: a batch is one tenant's): a member equal
// to the one held is the same content, since encodeMember writes one form for a plant.
const IMPORT_LUA = `
local max = tonumber(ARGV[1])
local count = redis.call('ZCARD', KEYS[1])
local out = {}
for i = 3, #ARGV, 2 do
  local held = redis.call('ZRANGE', KEYS[1], '[' .. ARGV[i] .. ':', '(' .. ARGV[i] .. ';', 'BYLEX', 'LIMIT', 0, 1)
  if #held > 0 then
    if held[1] == ARGV[i + 1] then
      out[#out + 1] = 1
    elseif ARGV[2] == '1' then
      redis.call('ZREM', KEYS[1], held[1])
      redis.call('ZADD', KEYS[1], 0, ARGV[i + 1])
      out[#out + 1] = 2
    else
      out[#out + 1] = 3
    end
  elseif max > 0 and count >= max then
    out[#out + 1] = 4
  else
    redis.call('ZADD', KEYS[1], 0, ARGV[i + 1])
    count = count + 1
    out[#out + 1] = 0
  end
end
return out`;

const IMPORT_OUTCOMES: readonly ImportOutcome[] = [
  'stored',
  'present',
  'replaced',
  'conflict',
  'quota',
];

/** The tenants one SCAN pass read, sorted, and how many of them were paged out already. */
type Walk = { tenants: string[]; next: number; timer?: NodeJS.Timeout };
/** Walks kept at once (exports paging at the same time), and how long one waits for its next page. */
const MAX_WALKS = 8;
const WALK_IDLE_MS = 60_000;

// A script declared with a shebang and no flags may write, so Redis 7 refuses to run it while
// writes are refused (OOM, MISCONF, READONLY); it writes nothing, so readiness costs no key.
const WRITABLE_LUA = `#!lua
return 1`;

export const DEFAULT_REDIS_PREFIX = 'plant-store:';

// Lone surrogates would become U+FFFD in UTF-8 and so merge two tenants into one key.
const LONE_SURROGATE = /\p{Cs}/u;

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * Plants in Redis: one sorted set per tenant, all scores 0, each member `<encoded id>:<JSON>` (see
 * redis-plant-codec.ts). The member is both the index entry and the plant, so neither can exist
 * without the other; each operation is one atomic command or script, one round trip.
 */
export class RedisPlantStore implements PlantStore {
  /** Walks through the tenants, by the last tenant of the page each served (see tenants). */
  private readonly walks = new Map<string, Walk>();

  constructor(
    private readonly client: RedisClient,
    private readonly prefix: string = DEFAULT_REDIS_PREFIX,
    private readonly maxPlants: number = DEFAULT_MAX_PLANTS_PER_TENANT,
  ) {
    if (/[{}]/.test(prefix)) throw new Error('the Redis key prefix must not contain { or }');
    client.defineCommand('plantInsert', { lua: INSERT_LUA, numberOfKeys: 4 });
    client.defineCommand('plantImport', { lua: IMPORT_LUA, numberOfKeys: 1 });
    client.defineCommand('plantWritable', { lua: WRITABLE_LUA, numberOfKeys: 0 });
  }

  /**
   * One script: looks the id up in the tenant's set, counts it, adds the member when allowed and
   * records the event.
   */
  async insert(tenant: string, plant: StoredPlant, event?: PlantEvent): Promise<boolean> {
    const member = encodeMember(plant);
    const keys = webhookKeys(this.prefix, tenant);
    const stored = await redisCall(
      this.client.plantInsert(
        this.key(tenant),
        keys.targets('plant.created'),
        keys.outbox,
        keys.deliveries,
        encodeId(plant.id),
        member,
        String(this.maxPlants),
        event === undefined ? '' : newEventId(),
        String(Date.now()),
        event === undefined ? '' : eventBody(event),
      ),
      true,
    );
    if (stored === -1) throw plantQuotaReached(this.maxPlants);
    return stored === 1;
  }

  /** One ZRANGE BYLEX from just above `after`, at most `limit` members. */
  // TODO(tags): interim, through list; the tag index to come.
  async get(tenant: string, id: PlantId): Promise<StoredPlant | undefined> {
    const [found] = await this.list(tenant, id - 1n, 1);
    return found?.id === id ? found : undefined;
  }

  async list(tenant: string, after: PlantId | undefined, limit: number): Promise<StoredPlant[]> {
    if (limit <= 0) return [];
    const members = await redisCall(
      this.client.zrange(this.key(tenant), afterBound(after), '+', 'BYLEX', 'LIMIT', 0, limit),
      true,
    );
    return members.map(decodeMember);
  }

  /** One ZREMRANGEBYLEX over exactly the id's members. */
  async delete(tenant: string, id: PlantId): Promise<boolean> {
    const [min, max] = idRange(id);
    return (await redisCall(this.client.zremrangebylex(this.key(tenant), min, max), true)) > 0;
  }

  /**
   * One SCAN pass over the prefix's plant keys on every master (Redis orders nothing) reads every
   * tenant above `after`, sorted; the pages that continue from this one (`after` its last tenant)
   * are served from that reading, so an export costs one pass however many pages it reads, and
   * memory holds its tenants' names (about 100 bytes each) until its last page or WALK_IDLE_MS.
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
    if (page.length === limit) this.keepWalk(page.at(-1)!, walk);
    return page;
  }

  /** Every tenant above `after` holding plants, in code-point order: one SCAN pass. */
  private async scanTenants(after: string | undefined): Promise<string[]> {
    // The prefix escaped, so that the pattern matches it alone.
    const match = `${this.prefix.replace(/[*?[\]\\]/g, '\\$&')}{*}:plants`;
    const start = this.prefix.length + 1;
    const found: string[] = [];
    const nodes = 'nodes' in this.client ? this.client.nodes('master') : [this.client];
    for (const node of nodes) {
      let cursor = '0';
      do {
        // A pass reads the whole prefix: large counts make fewer round trips.
        const [next, keys] = await redisCall(
          node.scan(cursor, 'MATCH', match, 'COUNT', 1000),
          true,
        );
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

  /** Keeps `walk` for the page after `last`, a few walks at most, each for WALK_IDLE_MS. */
  private keepWalk(last: string, walk: Walk): void {
    if (this.walks.size >= MAX_WALKS) {
      const [oldest, dropped] = this.walks.entries().next().value!;
      clearTimeout(dropped.timer);
      this.walks.delete(oldest);
    }
    walk.timer = setTimeout(() => this.walks.delete(last), WALK_IDLE_MS).unref();
    this.walks.set(last, walk);
  }

  /** One script for the whole batch (see IMPORT_LUA). */
  async importBatch(
    tenant: string,
    plants: readonly StoredPlant[],
    overwrite: boolean,
  ): Promise<ImportOutcome[]> {
    if (plants.length === 0) return [];
    const args = [String(this.maxPlants), overwrite ? '1' : '0'];
    for (const plant of plants) args.push(encodeId(plant.id), encodeMember(plant));
    const codes = await redisCall(this.client.plantImport(this.key(tenant), ...args), true);
    return codes.map((code) => IMPORT_OUTCOMES[code]!);
  }

  /**
   * One script that Redis runs only while it takes writes, under the same deadline as every
   * operation; a Redis before 7, which knows no script flags, gets a PING instead.
   */
  async ping(): Promise<void> {
    try {
      await redisCall(this.client.plantWritable(), true);
    } catch (error) {
      if (!(error instanceof Error) || !/compiling script/.test(error.message)) throw error;
      await redisCall(this.client.ping(), true);
    }
  }

  private key(tenant: string): string {
    if (LONE_SURROGATE.test(tenant)) throw new Error('a tenant name must be well-formed Unicode');
    return plantsKey(this.prefix, tenant);
  }
}
