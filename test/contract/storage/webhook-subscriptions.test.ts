import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import {
  MongoWebhookSubscriptions,
  WEBHOOK_COLLECTION,
} from '../../../src/adapters/storage/mongodb/mongo-webhook-subscriptions.js';
import { FileWebhookSubscriptions } from '../../../src/adapters/storage/file/file-webhook-subscriptions.js';
import { createRedisClient, untilReady } from '../../../src/adapters/storage/redis/redis-client.js';
import { parseRedisUrl } from '../../../src/adapters/storage/redis/redis-url.js';
import { RedisWebhookSubscriptions } from '../../../src/adapters/storage/redis/redis-webhook-subscriptions.js';
import { startMongoServer, type MongoServer } from '../../support/mongo-server.js';
import { startRedisServer } from '../../support/redis-server.js';
import { serverMissing } from '../../support/server-requirement.js';
import { describeWebhookSubscriptionsContract } from './webhook-subscriptions-contract.js';

const directory = mkdtempSync(join(tmpdir(), 'plant-store-webhook-file-'));
const file = join(directory, 'webhooks.json');

describeWebhookSubscriptionsContract('file (memory storage)', {
  open: async () => new FileWebhookSubscriptions(file, 0),
  close: async () => {
    // The file holds signing secrets: readable by its owner only.
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    rmSync(directory, { recursive: true, force: true });
  },
});

let closeRedis: (() => Promise<void>) | undefined;
describeWebhookSubscriptionsContract('Redis', {
  open: async (context) => {
    const started = await startRedisServer();
    if (typeof started === 'string') {
      serverMissing(context, 'Redis', started);
      throw new Error('unreachable');
    }
    closeRedis = started.close;
    const target = parseRedisUrl(started.url);
    const client = createRedisClient(target);
    await untilReady(client, 2000);
    return new RedisWebhookSubscriptions(client, undefined, true);
  },
  close: async () => closeRedis?.(),
});

let mongo: MongoServer | undefined;
describeWebhookSubscriptionsContract('MongoDB (FerretDB when no mongod)', {
  open: async (context) => {
    context.timeout(60_000);
    const started = await startMongoServer();
    if (typeof started === 'string') {
      serverMissing(context, 'MongoDB', started);
      throw new Error('unreachable');
    }
    mongo = started;
    const client = new MongoClient(started.url);
    const collection = client.db().collection<{ _id: string }>(WEBHOOK_COLLECTION);
    return new MongoWebhookSubscriptions(client, collection, 0);
  },
  close: async () => mongo?.dispose(),
});
