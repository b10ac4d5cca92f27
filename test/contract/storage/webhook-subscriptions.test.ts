import { statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import { FileWebhookSubscriptions } from '../../../src/adapters/storage/file/file-webhook-subscriptions.js';
import {
  MongoWebhookSubscriptions,
  WEBHOOK_COLLECTION,
} from '../../../src/adapters/storage/mongodb/mongo-webhook-subscriptions.js';
import { createRedisClient, untilReady } from '../../../src/adapters/storage/redis/redis-client.js';
import { parseRedisUrl } from '../../../src/adapters/storage/redis/redis-url.js';
import { RedisWebhookSubscriptions } from '../../../src/adapters/storage/redis/redis-webhook-subscriptions.js';
import type { RedisUnderTest } from '../../support/redis-server.js';
import { describeAdapters } from '../../support/adapter-table.js';
import {
  describeWebhookSubscriptionsContract,
  type WebhookSubscriptionsHarness,
} from './webhook-subscriptions-contract.js';

/** A store on its own client, which it closes with itself. */
const onRedis = (redis: RedisUnderTest): WebhookSubscriptionsHarness => ({
  open: async () => {
    const client = createRedisClient(parseRedisUrl(redis.url));
    await untilReady(client, 2000);
    return new RedisWebhookSubscriptions(client, redis.prefix, true);
  },
});

describeAdapters<WebhookSubscriptionsHarness>(
  [
    {
      name: 'file (memory storage)',
      on: 'in process',
      open: ({ directory }) => {
        const file = join(directory, 'webhooks.json');
        return {
          open: async () => new FileWebhookSubscriptions(file, 0),
          // The file holds signing secrets: readable by its owner only.
          close: async () => {
            expect(statSync(file).mode & 0o777).to.equal(0o600);
          },
        };
      },
    },
    { name: 'Redis', on: 'Redis', open: onRedis },
    { name: 'Redis Cluster', on: 'Redis Cluster', open: onRedis },
    {
      name: 'MongoDB',
      on: 'MongoDB',
      open: (server) => ({
        open: async () => {
          const client = new MongoClient(server.url);
          const collection = client.db().collection<{ _id: string }>(WEBHOOK_COLLECTION);
          return new MongoWebhookSubscriptions(client, collection, 0);
        },
      }),
    },
  ],
  (name, harness) =>
    describeWebhookSubscriptionsContract(name, {
      open: (context) => harness().open(context),
      close: async () => harness().close?.(),
    }),
);
