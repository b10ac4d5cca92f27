import { expect } from 'chai';
import { openMongoStorage } from '../../../src/adapters/storage/mongodb/open-mongo-storage.js';
import type { Storage } from '../../../src/ports/storage.js';
import { startMongoServer } from '../../support/mongo-server.js';
import { suiteServer } from '../../support/server-requirement.js';
import { newSubscription } from '../../support/webhook-subscription.js';

const DOCUMENTS = 150;
const LEASE_MS = 60_000;

// A claim leases each claimed document holding more than one delivery with its own update, all in
// one bulkWrite. FerretDB v1 (SQLite) held a connection per update of one command until the
// command ended, out of a pool of 100: a claim of 100 such documents or more (the dispatcher
// claims up to PLANT_STORE_WEBHOOK_CONCURRENCY) never returned, nor did the server.
describe('MongoDB outbox claims', function () {
  // Each store call has a 2 s deadline; this bounds the whole test (150 inserts on a busy machine).
  this.timeout(60_000);
  const mongo = suiteServer('MongoDB', startMongoServer, (server) => server.dispose());
  let storage: Storage;
  before(async () => {
    storage = await openMongoStorage({ url: mongo().url }, {}, 0);
  });
  after(() => storage?.close());

  it('when 150 documents of two deliveries each are claimed at once, then each delivery is claimed once and the store serves after', async () => {
    const tenant = 'outbox-claims';
    for (let i = 0; i < 2; i++) await storage.webhooks!.add(newSubscription(tenant));
    for (let id = 1n; id <= DOCUMENTS; id++) {
      const plant = { id, name: `plant ${id}` };
      await storage.plants.insert(tenant, plant, { type: 'plant.created', plant });
    }

    const claimed = await storage.outbox!.claim(new Date(), DOCUMENTS * 2, LEASE_MS);

    expect(claimed).to.have.length(DOCUMENTS * 2);
    expect(new Set(claimed.map((delivery) => delivery.key)).size).to.equal(DOCUMENTS * 2);
    // Leased: nothing is due again before the lease ends.
    expect(await storage.outbox!.claim(new Date(), DOCUMENTS * 2, LEASE_MS)).to.deep.equal([]);
    await storage.plants.ping();
    expect(await storage.plants.list(tenant, undefined, 3)).to.have.length(3);
  });
});
