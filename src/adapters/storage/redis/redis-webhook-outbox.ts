import type { PendingDelivery, WebhookOutbox } from '../../../ports/webhook-outbox.js';
import { toPendingDelivery, type DeliveryRecord } from '../webhook-record.js';
import { redisCall, script, type RedisClient } from './redis-client.js';
import { webhookIndexKeys, webhookKeys } from './redis-plant-codec.js';

// KEYS: outbox, deliveries. Claim, ARGV: now, lease end, max; moves each due delivery's time to the
// lease's end (others skip it until then) and answers [key, JSON, ...]. Retry, ARGV: key, due,
// JSON; 0 when the delivery is gone. Complete, ARGV: the keys of the deliveries to forget.
const CLAIM_LUA = `
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for _, key in ipairs(due) do
  redis.call('ZADD', KEYS[1], 'XX', ARGV[2], key)
  out[#out + 1] = key
  out[#out + 1] = redis.call('HGET', KEYS[2], key) or ''
end
return out`;
const RETRY_LUA = `
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], 'XX', ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
return 1`;
const COMPLETE_LUA = `
redis.call('HDEL', KEYS[2], unpack(ARGV))
return redis.call('ZREM', KEYS[1], unpack(ARGV))`;

// Completions of one tenant that come within one turn of the event loop go in one call.
const COMPLETE_BATCH = 256;

type Stored = DeliveryRecord & { at: string };
type Batch = { keys: string[]; settle: ((error?: unknown) => void)[] };

/**
 * The deliveries the insert script recorded: per tenant, a sorted set by due time and a hash of
 * bodies, in the tenant's slot. Every instance polls each tenant that ever had a subscription.
 */
export class RedisWebhookOutbox implements WebhookOutbox {
  private readonly completing = new Map<string, Batch>();
  private flushing: NodeJS.Immediate | undefined;
  private readonly scripts;

  constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
  ) {
    this.scripts = {
      claim: script<string[]>(client, 'outboxClaim', 2, CLAIM_LUA),
      retry: script<number>(client, 'outboxRetry', 2, RETRY_LUA),
      complete: script<number>(client, 'outboxComplete', 2, COMPLETE_LUA),
    };
  }

  private async tenants(): Promise<string[]> {
    return redisCall(this.client.smembers(webhookIndexKeys(this.prefix).tenants));
  }

  async claim(
    now: Date,
    max: number,
    leaseMs: number,
    roomFor: (tenant: string) => number = () => Infinity,
  ): Promise<PendingDelivery[]> {
    const claimed: PendingDelivery[] = [];
    for (const tenant of await this.tenants()) {
      if (claimed.length >= max) break;
      const room = Math.min(max - claimed.length, roomFor(tenant));
      if (room <= 0) continue;
      const keys = this.keys(tenant);
      const args = [now.getTime(), now.getTime() + leaseMs, room].map(String);
      const flat = await redisCall(this.scripts.claim(...keys, ...args));
      for (let i = 0; i < flat.length; i += 2) {
        const json = flat[i + 1]!;
        const delivery =
          json === '' ? undefined : toPendingDelivery(tenant, flat[i]!, JSON.parse(json) as Stored);
        if (delivery !== undefined) claimed.push(delivery);
        else await redisCall(this.scripts.complete(...keys, flat[i]!));
      }
    }
    return claimed;
  }

  /** Forgets the delivery; the completions of a tenant within one turn share one round trip. */
  complete(delivery: PendingDelivery): Promise<void> {
    return new Promise((resolve, reject) => {
      const batch = this.completing.get(delivery.tenant) ?? { keys: [], settle: [] };
      this.completing.set(delivery.tenant, batch);
      batch.keys.push(delivery.key);
      batch.settle.push((error) => (error === undefined ? resolve() : reject(error)));
      if (batch.keys.length >= COMPLETE_BATCH) this.completeNow(delivery.tenant);
      else this.flushing ??= setImmediate(() => this.completeAll());
    });
  }

  private completeAll(): void {
    this.flushing = undefined;
    for (const tenant of [...this.completing.keys()]) this.completeNow(tenant);
  }

  private completeNow(tenant: string): void {
    const batch = this.completing.get(tenant);
    if (batch === undefined) return;
    this.completing.delete(tenant);
    redisCall(this.scripts.complete(...this.keys(tenant), ...batch.keys)).then(
      () => batch.settle.forEach((settle) => settle()),
      (error: unknown) => batch.settle.forEach((settle) => settle(error ?? new Error('failed'))),
    );
  }

  async retry(delivery: PendingDelivery, due: Date, attempts: number): Promise<void> {
    const { subscriptionId: sub, eventId: event, type, body, createdAt } = delivery;
    const at = String(createdAt.getTime());
    const json = JSON.stringify({ sub, event, type, body, at, attempts } satisfies Stored);
    const keys = this.keys(delivery.tenant);
    await redisCall(this.scripts.retry(...keys, delivery.key, String(due.getTime()), json));
  }

  async trim(tenant: string, keep: number): Promise<number> {
    const [outbox, deliveries] = this.keys(tenant);
    if ((await redisCall(this.client.zcard(outbox))) <= keep) return 0;
    const all = Object.entries(await redisCall(this.client.hgetall(deliveries)));
    const oldest = all
      .map(([key, json]) => ({ key, at: Number((JSON.parse(json) as Stored).at) }))
      .sort((a, b) => a.at - b.at)
      .slice(0, Math.max(0, all.length - keep))
      .map(({ key }) => key);
    // In batches: Lua's unpack takes some thousands of values at most.
    for (let i = 0; i < oldest.length; i += COMPLETE_BATCH) {
      const batch = oldest.slice(i, i + COMPLETE_BATCH);
      await redisCall(this.scripts.complete(outbox, deliveries, ...batch));
    }
    return oldest.length;
  }

  async size(tenant?: string): Promise<number> {
    const counts = await Promise.all(
      (tenant === undefined ? await this.tenants() : [tenant]).map((tenant) =>
        redisCall(this.client.zcard(this.keys(tenant)[0])),
      ),
    );
    return counts.reduce((sum, count) => sum + count, 0);
  }

  async close(): Promise<void> {
    clearImmediate(this.flushing);
    this.completeAll();
  }

  /** The tenant's outbox and deliveries: the KEYS of every script. */
  private keys(tenant: string): [string, string] {
    const { outbox, deliveries } = webhookKeys(this.prefix, tenant);
    return [outbox, deliveries];
  }
}
