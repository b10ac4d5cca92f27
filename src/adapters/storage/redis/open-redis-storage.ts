import { PlantError } from '../../../domain/errors.js';
import type { OpenedStorage } from '../../limits/limiter-store.js';
import { reportBoth, type OutageReporters } from '../outage-reporter.js';
import type { StorageDeps, StorageOptionsOf } from '../storage-options.js';
import { networkReason, remaining, StorageNotReady, waitForStorage } from '../startup.js';
import { StorageOpenError } from '../storage-open-error.js';
import {
  createRedisClient,
  isUnavailableError,
  quit,
  untilReady,
  type RedisClient,
} from './redis-client.js';
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
  const nodes = describeRedisTarget(target);
  const where = `${target.cluster ? 'Redis Cluster' : 'Redis'} at ${nodes}`;
  const client = createRedisClient(target);
  watchConnection(client, where, deps.outages);
  // The latest error across attempts: the last, cut short by the bound, may see none of its own.
  let latest: Error | undefined;
  const remember = (error: Error): void => void (latest = error);
  client.on('error', remember);
  try {
    await waitForStorage(
      ({ deadline }) =>
        untilReady(client, Math.min(ATTEMPT_MS, remaining(deadline)), latest).catch(
          (error: unknown) => {
            throw classify(error as Error, where);
          },
        ),
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

// One wait for "ready", after which its reason is logged (once) and it waits again.
const ATTEMPT_MS = 1000;

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

/**
 * Reports losing and regaining Redis the moment the connection does; errors before the first
 * connection are the opener's to say. Without reporters errors are still listened to, so that
 * ioredis does not print each one: the operations they fail reject with storage-unavailable.
 */
function watchConnection(client: RedisClient, where: string, outages?: OutageReporters): void {
  if (outages === undefined) {
    client.on('error', () => {});
    return;
  }
  let up = false;
  client.on('error', (error: Error) => up && reportBoth(outages, where, error.message));
  client.on('ready', () => {
    up = true;
    reportBoth(outages, where);
  });
}
