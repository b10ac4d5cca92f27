import { MongoClient } from 'mongodb';
import { join } from 'node:path';
import { MemoryWebhookSubscriptions } from '../../../src/adapters/storage/memory/memory-webhook-subscriptions.js';
import type { OpenedStorage } from '../../../src/adapters/limits/limiter-store.js';
import { openLmdbStorage } from '../../../src/adapters/storage/lmdb/open-lmdb-storage.js';
import {
  MongoWebhookSubscriptions,
  WEBHOOK_COLLECTION,
} from '../../../src/adapters/storage/mongodb/mongo-webhook-subscriptions.js';
import {
  createRedisClient,
  quit,
  untilReady,
  type RedisClient,
} from '../../../src/adapters/storage/redis/redis-client.js';
import { parseRedisUrl } from '../../../src/adapters/storage/redis/redis-url.js';
import { RedisWebhookSubscriptions } from '../../../src/adapters/storage/redis/redis-webhook-subscriptions.js';
import type { RedisUnderTest } from '../../support/redis-server.js';
import { describeAdapters } from '../../support/adapter-table.js';
import {
  describeWebhookSubscriptionsContract,
  type WebhookSubscriptionsHarness,
} from './webhook-subscriptions-contract.js';

/** A store on its own client, which the harness closes after it. */
const onRedis = (redis: RedisUnderTest): WebhookSubscriptionsHarness => {
  let client: RedisClient | undefined;
  return {
    open: async () => {
      client = createRedisClient(parseRedisUrl(redis.url));
      await untilReady(client, 2000);
      return new RedisWebhookSubscriptions(client, redis.prefix);
    },
    close: async () => client && quit(client),
  };
};

describeAdapters<WebhookSubscriptionsHarness>(
  [
    {
      name: 'memory',
      on: 'in process',
      open: () => ({ open: async () => new MemoryWebhookSubscriptions() }),
    },
    {
      name: 'lmdb',
      on: 'in process',
      open: ({ directory }) => {
        let storage: OpenedStorage | undefined;
        return {
          open: async () => {
            storage = await openLmdbStorage({ dataDir: join(directory, 'lmdb') });
            return storage.webhooks!;
          },
          close: async () => storage?.close(),
        };
      },
    },
    { name: 'Redis', on: 'Redis', open: onRedis },
    { name: 'Redis Cluster', on: 'Redis Cluster', open: onRedis },
    {
      name: 'MongoDB',
      on: 'MongoDB',
      open: (server) => {
        let client: MongoClient | undefined;
        return {
          open: async () => {
            client = new MongoClient(server.url);
            const collection = client.db().collection<{ _id: string }>(WEBHOOK_COLLECTION);
            return new MongoWebhookSubscriptions(collection, 0);
          },
          close: async () => client?.close(),
        };
      },
    },
  ],
  (name, harness) => {
    // The harness that opened the store closes it.
    let opened: WebhookSubscriptionsHarness | undefined;
    describeWebhookSubscriptionsContract(name, {
      open: (context) => (opened = harness()).open(context),
      close: async () => opened?.close?.(),
    });
  },
);
