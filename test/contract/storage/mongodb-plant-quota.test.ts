import { expect } from 'chai';
import {
  createMongoClient,
  databaseName,
} from '../../../src/adapters/storage/mongodb/mongo-client.js';
import {
  COLLECTION,
  MongoPlantStore,
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
import {
  COUNT_COLLECTION,
  PlantCounts,
} from '../../../src/adapters/storage/mongodb/plant-counts.js';
import type { Storage } from '../../../src/ports/storage.js';
import { startMongoServer } from '../../support/mongo-server.js';
import { suiteServer } from '../../support/server-requirement.js';
import { describePlantQuotaContract } from './plant-quota-contract.js';

describe('MongoDB', function () {
  const server = suiteServer('MongoDB', startMongoServer, (found) => found.dispose());

  /** As openMongoStorage opens it on MongoDB; built by hand so that FerretDB runs the counting too. */
  async function openCounted(max: number): Promise<Storage> {
    const url = server().url;
    await (await openMongoStorage({ url, maxPlantsPerTenant: 0 })).close(); // the indexes
    const client = createMongoClient(url);
    const database = client.db(databaseName(url));
    const quota = new PlantCounts(database.collection(COUNT_COLLECTION), max);
    const plants = database.collection<PlantDocument>(COLLECTION);
    const webhooks = new MongoWebhookSubscriptions(
      undefined,
      database.collection(WEBHOOK_COLLECTION),
      0,
    );
    return {
      plants: new MongoPlantStore(
        client,
        plants,
        { quota, max },
        undefined,
        MongoWebhookOutbox.entries(webhooks),
      ),
      tokens: new MongoTokenStore(database.collection(TOKEN_COLLECTION)),
      webhooks,
      outbox: new MongoWebhookOutbox(plants),
      close: () => client.close(),
    };
  }

  describePlantQuotaContract('mongodb', openCounted, () =>
    server().kind === 'ferretdb'
      ? 'FerretDB v1 applies updates without atomicity, so racing counts are lost'
      : undefined,
  );

  it('when the server is FerretDB v1, then the opened storage keeps no quota (it could not hold one); on MongoDB it does', async () => {
    const storage = await openMongoStorage({ url: server().url, maxPlantsPerTenant: 1 });
    try {
      const tenant = `ferret-${Date.now()}`;
      await storage.plants.insert(tenant, { id: 1n, name: 'a' });
      const second = await storage.plants
        .insert(tenant, { id: 2n, name: 'b' })
        .catch(() => 'refused');

      expect(second).to.equal(server().kind === 'ferretdb' ? true : 'refused');
    } finally {
      await storage.close();
    }
  });
});
