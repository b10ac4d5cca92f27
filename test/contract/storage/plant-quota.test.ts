import { join } from 'node:path';
import { openLmdbStorage } from '../../../src/adapters/storage/lmdb/open-lmdb-storage.js';
import { randomUUID } from 'node:crypto';
import { openMemoryStorage } from '../../../src/adapters/storage/memory/open-memory-storage.js';
import {
  createMongoClient,
  databaseName,
} from '../../../src/adapters/storage/mongodb/mongo-client.js';
import {
  COLLECTION,
  COUNT_COLLECTION,
  PROBE_COLLECTION,
  MongoPlantStore,
  PlantCounts,
  type PlantDocument,
} from '../../../src/adapters/storage/mongodb/mongo-plant-store.js';
import {
  MongoTokenStore,
  TOKEN_COLLECTION,
} from '../../../src/adapters/storage/mongodb/mongo-token-store.js';
import { MongoWebhookOutbox } from '../../../src/adapters/storage/mongodb/mongo-webhook-outbox.js';
import {
  MongoWebhookSubscriptions,
  WEBHOOK_COLLECTION,
} from '../../../src/adapters/storage/mongodb/mongo-webhook-subscriptions.js';
import { openMongoStorage } from '../../../src/adapters/storage/mongodb/open-mongo-storage.js';
import { openRedisStorage } from '../../../src/adapters/storage/redis/open-redis-storage.js';
import type { Storage } from '../../../src/ports/storage.js';
import { describeAdapters } from '../../support/adapter-table.js';
import { describePlantQuotaContract } from './plant-quota-contract.js';

/** A storage opened with a quota of `max` plants per tenant, and why racing creates may pass it there. */
interface QuotaHarness {
  open(maxPlantsPerTenant: number): Promise<Storage>;
  racesPassQuota?(): string | undefined;
}

/** As openMongoStorage opens it on MongoDB; built by hand so that FerretDB runs the counting too. */
async function openCounted(url: string, max: number): Promise<Storage> {
  await (await openMongoStorage({ url, maxPlantsPerTenant: 0 })).close(); // the indexes
  const client = createMongoClient(url);
  const database = client.db(databaseName(url));
  const quota = new PlantCounts(database.collection(COUNT_COLLECTION), max);
  const plants = database.collection<PlantDocument>(COLLECTION);
  const webhooks = new MongoWebhookSubscriptions(database.collection(WEBHOOK_COLLECTION), 0);
  return {
    plants: new MongoPlantStore(
      client,
      plants,
      quota,
      database.collection(PROBE_COLLECTION),
      MongoWebhookOutbox.entries(webhooks),
    ),
    tokens: new MongoTokenStore(database.collection(TOKEN_COLLECTION)),
    webhooks,
    outbox: new MongoWebhookOutbox(plants),
    close: () => client.close(),
  };
}

describeAdapters<QuotaHarness>(
  [
    {
      // The whole memory storage: its plants under the quota and the outbox their events go to.
      name: 'memory',
      on: 'in process',
      open: () => ({
        open: (maxPlantsPerTenant) => openMemoryStorage({ storage: { maxPlantsPerTenant } }),
      }),
    },
    {
      // A directory per opening: each test gets a store of its own.
      name: 'lmdb',
      on: 'in process',
      open: ({ directory }) => ({
        open: (maxPlantsPerTenant) =>
          openLmdbStorage({ dataDir: join(directory, randomUUID()), maxPlantsPerTenant }),
      }),
    },
    {
      name: 'Redis',
      on: 'Redis',
      open: (redis) => ({
        open: (maxPlantsPerTenant) => openRedisStorage({ ...redis, maxPlantsPerTenant }),
      }),
    },
    {
      name: 'Redis Cluster',
      on: 'Redis Cluster',
      open: (redis) => ({
        open: (maxPlantsPerTenant) => openRedisStorage({ ...redis, maxPlantsPerTenant }),
      }),
    },
    {
      name: 'MongoDB',
      on: 'MongoDB',
      open: (server) => ({
        open: (max) => openCounted(server.url, max),
        racesPassQuota: () =>
          server.kind === 'ferretdb'
            ? 'FerretDB v1 applies updates without atomicity, so racing counts are lost'
            : undefined,
      }),
    },
  ],
  (name, harness) =>
    describePlantQuotaContract(
      name,
      (max) => harness().open(max),
      () => harness().racesPassQuota?.(),
    ),
);
