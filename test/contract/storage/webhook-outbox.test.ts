import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { openLmdbStorage } from '../../../src/adapters/storage/lmdb/open-lmdb-storage.js';
import { openMemoryStorage } from '../../../src/adapters/storage/memory/open-memory-storage.js';
import { openMongoStorage } from '../../../src/adapters/storage/mongodb/open-mongo-storage.js';
import { openRedisStorage } from '../../../src/adapters/storage/redis/open-redis-storage.js';
import type { Storage } from '../../../src/ports/storage.js';
import { withDatabase, type MongoServer } from '../../support/mongo-server.js';
import type { RedisUnderTest } from '../../support/redis-server.js';
import { describeAdapters } from '../../support/adapter-table.js';
import {
  describeWebhookOutboxContract,
  type WebhookOutboxHarness,
} from './webhook-outbox-contract.js';

/** Opens `instance` once for the test and again for each peer; closes them all, then `drop`. */
async function instances(
  instance: () => Promise<Storage>,
  drop: () => Promise<void> = async () => {},
): ReturnType<WebhookOutboxHarness['open']> {
  const opened = [await instance()];
  return {
    storage: opened[0]!,
    peer: async () => {
      const peer = await instance();
      opened.push(peer);
      return peer;
    },
    close: async () => {
      for (const storage of opened) await storage.close();
      await drop();
    },
  };
}

/** Each test on a key prefix of its own; a peer is another client on it (another instance). */
const onRedis = (redis: RedisUnderTest): WebhookOutboxHarness => ({
  open: () => {
    const prefix = `${redis.prefix}outbox-${randomUUID()}:`;
    return instances(() => openRedisStorage({ url: redis.url, prefix }));
  },
});

/** Each test on a database of its own, dropped after it; a peer is another client on it. */
const onMongo = (server: MongoServer): WebhookOutboxHarness => ({
  racesClaimTwice: () =>
    server.kind === 'ferretdb'
      ? 'FerretDB v1 applies updates without atomicity, so racing claims may both move a document'
      : undefined,
  open: () => {
    const url = withDatabase(server.url, `outbox_${randomUUID().replaceAll('-', '')}`);
    return instances(
      () => openMongoStorage({ url }, {}, 0),
      async () => {
        const client = new MongoClient(url);
        await client.db().dropDatabase();
        await client.close();
      },
    );
  },
});

describeAdapters<WebhookOutboxHarness>(
  [
    {
      // One process holds it: a peer is the same outbox, claiming concurrently.
      name: 'memory',
      on: 'in process',
      open: () => ({
        open: async () => {
          const storage = await openMemoryStorage();
          return { storage, peer: async () => storage, close: () => storage.close() };
        },
      }),
    },
    {
      // A peer is another opening of the same directory, as another process's would be.
      name: 'lmdb',
      on: 'in process',
      open: ({ directory }) => ({
        open: () => {
          const dataDir = join(directory, randomUUID());
          return instances(() => openLmdbStorage({ dataDir }));
        },
      }),
    },
    { name: 'Redis', on: 'Redis', open: onRedis },
    { name: 'Redis Cluster', on: 'Redis Cluster', open: onRedis },
    { name: 'MongoDB', on: 'MongoDB', open: onMongo },
  ],
  (name, harness) =>
    describeWebhookOutboxContract(name, {
      open: () => harness().open(),
      racesClaimTwice: () => harness().racesClaimTwice?.(),
    }),
);
