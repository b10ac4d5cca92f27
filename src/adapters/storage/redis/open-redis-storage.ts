import { PlantError } from '../../../domain/errors.js';
import type { OpenedStorage } from '../../limits/limiter-store.js';
import { reportBoth } from '../outage-reporter.js';
import type { StorageDeps, StorageOptionsOf } from '../storage-options.js';
import { networkReason, remaining, StorageNotReady, waitForStorage } from '../startup.js';
import { StorageOpenError } from '../storage-open-error.js';
import { createRedisClient, isUnavailableError, quit, untilReady } from './redis-client.js';
import { RedisPlantStore } from './redis-plant-store.js';
import { RedisTokenStore } from './redis-token-store.js';
import { RedisWebhookOutbox } from './redis-webhook-outbox.js';
import { RedisWebhookSubscriptions } from './redis-webhook-subscriptions.js';
import { describeRedisTarget, parseRedisUrl } from './redis-url.js';

/**
 * Connects one client for plants, tokens and limits alike, waiting up to the start-up bound for a
 * Redis that is not up yet. Rejects with a StorageOpenError naming the nodes (never the password):
 * at once when Redis refuses the credentials, else when it is not ready within the bound.
 */
export async function openRedisStorage(
  config: Omit<StorageOptionsOf<'redis'>, 'kind'>,
  deps: StorageDeps = {},
): Promise<OpenedStorage> {
  const target = parseRedisUrl(config.url);
  const prefix = config.prefix ?? 'plant-store:';
  const where = `${target.cluster ? 'Redis Cluster' : 'Redis'} at ${describeRedisTarget(target)}`;
  const client = createRedisClient(target);
  // Losing and regaining Redis, reported as the connection sees it; errors before the first
  // connection are the opener's to say. Errors are always listened to, so that ioredis prints none
  // (the operations they fail reject with storage-unavailable).
  const { outages } = deps;
  let up = false;
  client.on('error', (error: Error) => outages && up && reportBoth(outages, where, error.message));
  client.on('ready', () => {
    up = true;
    if (outages) reportBoth(outages, where);
  });
  // The latest error across attempts: the last, cut short by the bound, may see none of its own.
  let latest: Error | undefined;
  const remember = (error: Error): void => void (latest = error);
  client.on('error', remember);
  try {
    await waitForStorage(
      ({ deadline }) =>
        // One wait for "ready", after which its reason is logged (once) and it waits again.
        untilReady(client, Math.min(1000, remaining(deadline)), latest).catch((error: unknown) => {
          throw classify(error as Error, where);
        }),
      {
        where,
        variable: 'REDIS_URL',
        timeoutMs: deps.startupTimeoutMs ?? 30_000,
        logger: deps.logger,
        signal: deps.signal,
      },
    );
    const plants = new RedisPlantStore(client, prefix, config.maxPlantsPerTenant);
    await plants.indexTags(deps).catch((error: unknown) => {
      if (!(error instanceof PlantError)) throw error;
      throw new StorageOpenError(where, 'REDIS_URL', `cannot index the tags: ${error.message}`, {
        cause: error,
      });
    });
    return {
      plants,
      tokens: new RedisTokenStore(client, prefix),
      webhooks: new RedisWebhookSubscriptions(client, prefix),
      outbox: new RedisWebhookOutbox(client, prefix),
      limiterStore: { kind: 'redis', client, prefix },
      close: () => quit(client),
    };
  } catch (error) {
    client.disconnect();
    throw error;
  } finally {
    client.off('error', remember);
  }
}

/** Waiting helps when Redis is unreachable or loading; a refused password or an unknown reply is final. */
function classify(error: Error, where: string): Error {
  if (isUnavailableError(error) || error.message === 'no answer') {
    const reason = /^LOADING/.test(error.message)
      ? 'loading its data'
      : (networkReason(error.message) ?? 'no answer');
    return new StorageNotReady(reason, { cause: error });
  }
  const problem = /WRONGPASS|NOAUTH|invalid password|invalid username/i.test(error.message)
    ? 'refused authentication'
    : `cannot be used: ${error.message}`;
  return new StorageOpenError(where, 'REDIS_URL', problem, { cause: error });
}
