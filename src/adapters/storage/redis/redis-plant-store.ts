import type { Result } from 'ioredis';
import type { PlantId } from '../../../domain/plant-id.js';
import type { StoredPlant } from '../../../domain/plant.js';
import type { Logger } from '../../../ports/logger.js';
import type { PlantStore } from '../../../ports/plant-store.js';
import {
  createRedisClient,
  isUnavailableError,
  OPERATION_DEADLINE_MS,
  untilReady,
  type RedisClient,
} from './redis-client.js';
import { withinDeadline } from '../deadline.js';
import {
  afterBound,
  decodeMember,
  encodeId,
  encodeMember,
  idRange,
  plantsKey,
} from './redis-plant-codec.js';
import { describeRedisTarget, parseRedisUrl } from './redis-url.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** KEYS: the tenant's plants; ARGV: encoded id, member. 1 when stored, 0 when the id is taken. */
    plantInsert(key: string, id: string, member: string): Result<number, Context>;
  }
}

// Check and add in one script, so that of racing inserts of one id exactly one stores its plant.
const INSERT_LUA = `
if #redis.call('ZRANGE', KEYS[1], '[' .. ARGV[1] .. ':', '(' .. ARGV[1] .. ';', 'BYLEX', 'LIMIT', 0, 1) > 0 then
  return 0
end
redis.call('ZADD', KEYS[1], 0, ARGV[2])
return 1`;

export const DEFAULT_REDIS_PREFIX = 'plant-store:';

export interface RedisPlantStoreOptions {
  /** A REDIS_URL: `redis[s]://...` or `redis[s]+cluster://host:port,host:port`. */
  url: string;
  /** Put before every key; no `{` or `}`, which would move the cluster hash tag. */
  prefix?: string;
  logger?: Logger;
}

// Lone surrogates would become U+FFFD in UTF-8 and so merge two tenants into one key.
const LONE_SURROGATE = /\p{Cs}/u;

function checkPrefix(prefix: string): void {
  if (/[{}]/.test(prefix)) throw new Error('the Redis key prefix must not contain { or }');
}

/**
 * Plants in Redis: one sorted set per tenant, all scores 0, each member `<encoded id>:<JSON>` (see
 * redis-plant-codec.ts). The member is both the index entry and the plant, so neither can exist
 * without the other; each operation is one atomic command or script, one round trip.
 */
export class RedisPlantStore implements PlantStore {
  constructor(
    private readonly client: RedisClient,
    private readonly prefix: string = DEFAULT_REDIS_PREFIX,
  ) {
    checkPrefix(prefix);
    client.defineCommand('plantInsert', { lua: INSERT_LUA, numberOfKeys: 1 });
  }

  /** Connects to the URL; rejects with one line naming the nodes when Redis is not ready within the deadline. */
  static async open(options: RedisPlantStoreOptions): Promise<RedisPlantStore> {
    const target = parseRedisUrl(options.url);
    if (options.prefix !== undefined) checkPrefix(options.prefix);
    const client = createRedisClient(target);
    watchConnection(client, describeRedisTarget(target), options.logger);
    try {
      await untilReady(client, target, OPERATION_DEADLINE_MS);
    } catch (error) {
      client.disconnect();
      throw error;
    }
    return new RedisPlantStore(client, options.prefix);
  }

  /** One script: looks the id up in the tenant's set and adds the member when absent. */
  async insert(tenant: string, plant: StoredPlant): Promise<boolean> {
    const member = encodeMember(plant);
    const stored = await this.bounded(
      this.client.plantInsert(this.key(tenant), encodeId(plant.id), member),
    );
    return stored === 1;
  }

  /** One ZRANGE BYLEX from just above `after`, at most `limit` members. */
  async list(tenant: string, after: PlantId | undefined, limit: number): Promise<StoredPlant[]> {
    if (limit <= 0) return [];
    const members = await this.bounded(
      this.client.zrange(this.key(tenant), afterBound(after), '+', 'BYLEX', 'LIMIT', 0, limit),
    );
    return members.map(decodeMember);
  }

  /** One ZREMRANGEBYLEX over exactly the id's members. */
  async delete(tenant: string, id: PlantId): Promise<boolean> {
    const [min, max] = idRange(id);
    return (await this.bounded(this.client.zremrangebylex(this.key(tenant), min, max))) > 0;
  }

  /** One PING, under the same deadline as every operation. */
  async ping(): Promise<void> {
    await this.bounded(this.client.ping());
  }

  /** QUIT, or drops the connection when Redis does not answer. */
  async close(): Promise<void> {
    try {
      await this.bounded(this.client.quit());
    } catch {
      // Redis is gone already; drop the socket and stop reconnecting.
      this.client.disconnect();
    }
  }

  private key(tenant: string): string {
    if (LONE_SURROGATE.test(tenant)) throw new Error('a tenant name must be well-formed Unicode');
    return plantsKey(this.prefix, tenant);
  }

  /** Translates "Redis cannot be reached" into storage-unavailable, and caps the wait whatever the client does. */
  private bounded<T>(command: Promise<T>): Promise<T> {
    return withinDeadline(command, isUnavailableError);
  }
}

/**
 * Logs losing and regaining Redis once each, instead of ioredis's unhandled error events. Errors
 * before the first connection are left to open(), whose rejection says it in one line.
 */
function watchConnection(client: RedisClient, where: string, logger: Logger | undefined): void {
  let state: 'starting' | 'up' | 'down' = 'starting';
  client.on('error', (error: Error) => {
    if (state !== 'up') return;
    state = 'down';
    logger?.warn({ redis: where, reason: error.message }, 'Redis is unreachable');
  });
  client.on('ready', () => {
    if (state === 'down') logger?.info({ redis: where }, 'Redis is reachable again');
    state = 'up';
  });
}
