import {
  wants,
  type SubscriptionPatch,
  type WebhookSubscription,
} from '../../../domain/webhook.js';
import type { WebhookSubscriptions } from '../../../ports/webhook-subscriptions.js';
import { byCreation, fromRecord, patchEntries, toRecord } from '../webhook-record.js';
import { redisCall, script, type RedisClient } from './redis-client.js';
import { webhookIndexKeys, webhookKeys } from './redis-plant-codec.js';

const parse = (json: string): WebhookSubscription =>
  fromRecord(JSON.parse(json) as Record<string, unknown>);

// KEYS: the tenant's subscriptions, its plant.created targets; ARGV: id, then (add) JSON and '1'
// when it wants plant.created, (patch) patch JSON. The subscription and its place among the insert
// script's targets change together. Add: 1 written, 0 id taken; patch: merged JSON, nil when gone.
const ADD_LUA = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if ARGV[3] == '1' then redis.call('SADD', KEYS[2], ARGV[1]) end
return 1`;
// Merged in the script, so that a health update of the dispatcher never undoes a rotation or a
// disable that happened since it read the subscription.
const PATCH_LUA = `
local json = redis.call('HGET', KEYS[1], ARGV[1])
if not json then return false end
local current = cjson.decode(json)
for field, value in pairs(cjson.decode(ARGV[2])) do
  if value == cjson.null then current[field] = nil else current[field] = value end
end
local wanted = false
if current.enabled == true and type(current.events) == 'table' then
  for _, event in ipairs(current.events) do
    if event == 'plant.created' then wanted = true end
  end
end
if wanted then redis.call('SADD', KEYS[2], ARGV[1]) else redis.call('SREM', KEYS[2], ARGV[1]) end
json = cjson.encode(current)
redis.call('HSET', KEYS[1], ARGV[1], json)
return json`;
const REMOVE_LUA = `
redis.call('SREM', KEYS[2], ARGV[1])
return redis.call('HDEL', KEYS[1], ARGV[1])`;

/**
 * Webhook subscriptions in Redis: each tenant's in a hash in its plants' slot, with the set of its
 * enabled plant.created ones the insert script reads; an index hash (id -> tenant) finds them by id.
 */
export class RedisWebhookSubscriptions implements WebhookSubscriptions {
  private readonly scripts;
  private readonly keys;

  constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
  ) {
    this.keys = webhookIndexKeys(prefix);
    this.scripts = {
      add: script<number>(client, 'webhookAdd', 2, ADD_LUA),
      patch: script<string | null>(client, 'webhookPatch', 2, PATCH_LUA),
      remove: script<number>(client, 'webhookRemove', 2, REMOVE_LUA),
    };
  }

  async add(subscription: WebhookSubscription): Promise<boolean> {
    // Indexed first: a crash after it leaves an index entry without subscription, which find ignores.
    const { id, tenant } = subscription;
    if ((await redisCall(this.client.hsetnx(this.keys.index, id, tenant))) !== 1) return false;
    await redisCall(this.client.sadd(this.keys.tenants, tenant));
    const { subscriptions, created } = webhookKeys(this.prefix, tenant);
    const json = JSON.stringify(toRecord(subscription));
    const wanted = wants(subscription, 'plant.created') ? '1' : '0';
    return (await redisCall(this.scripts.add(subscriptions, created, id, json, wanted))) === 1;
  }

  async find(id: string): Promise<WebhookSubscription | undefined> {
    const keys = await this.keysOf(id);
    const json = keys && (await redisCall(this.client.hget(keys[0], id)));
    return json == null ? undefined : parse(json);
  }

  async list(tenant?: string): Promise<WebhookSubscription[]> {
    const tenants =
      tenant === undefined
        ? new Set(await redisCall(this.client.hvals(this.keys.index)))
        : [tenant];
    const all = await Promise.all(
      [...tenants].map((name) =>
        redisCall(this.client.hvals(webhookKeys(this.prefix, name).subscriptions)),
      ),
    );
    return all.flat().map(parse).sort(byCreation);
  }

  async update(id: string, patch: SubscriptionPatch): Promise<WebhookSubscription | undefined> {
    const keys = await this.keysOf(id);
    if (keys === undefined) return undefined;
    // JSON null: the field goes.
    const fields = Object.fromEntries(
      patchEntries(patch).map(([field, value]) => [field, value ?? null]),
    );
    const json = await redisCall(this.scripts.patch(...keys, id, JSON.stringify(fields)));
    return json === null ? undefined : parse(json);
  }

  async remove(id: string): Promise<boolean> {
    const keys = await this.keysOf(id);
    if (keys === undefined) return false;
    const removed = await redisCall(this.scripts.remove(...keys, id));
    await redisCall(this.client.hdel(this.keys.index, id));
    return removed === 1;
  }

  async close(): Promise<void> {}

  /** The subscriptions hash and plant.created set (the scripts' KEYS) of the subscription's tenant. */
  private async keysOf(id: string): Promise<[string, string] | undefined> {
    const tenant = await redisCall(this.client.hget(this.keys.index, id));
    if (tenant === null) return undefined;
    const { subscriptions, created } = webhookKeys(this.prefix, tenant);
    return [subscriptions, created];
  }
}
