import { expect } from 'chai';
import { openMongoStorage } from '../../../src/adapters/storage/mongodb/open-mongo-storage.js';
import type { Storage } from '../../../src/ports/storage.js';
import { startMongoServer } from '../../support/mongo-server.js';
import { suiteServer } from '../../support/server-requirement.js';

const PLANTS = 1000;
const batch = (tenant: string, name: string) =>
  Array.from({ length: PLANTS }, (_, i) => ({ id: BigInt(i + 1), name: `${name} ${tenant} ${i}` }));

// FerretDB v1 (SQLite) held a connection per update of one command until the command ended, out
// of a pool of 100: a batch overwriting 100 plants or more never returned, nor did the server.
describe('MongoDB import overwrites', function () {
  this.timeout(120_000);
  const mongo = suiteServer('MongoDB', startMongoServer, (server) => server.dispose());
  let storage: Storage;
  before(async () => {
    storage = await openMongoStorage({ url: mongo().url });
  });
  after(() => storage?.close());

  it('when batches of 1,000 held plants are overwritten at once, then each is replaced and the store serves after', async () => {
    const tenants = ['a', 'b'];
    for (const tenant of tenants)
      await storage.plants.importBatch(tenant, batch(tenant, 'old'), false);

    const outcomes = await Promise.all(
      tenants.map((tenant) => storage.plants.importBatch(tenant, batch(tenant, 'new'), true)),
    );

    for (const each of outcomes) expect(new Set(each)).to.deep.equal(new Set(['replaced']));
    await storage.plants.ping();
    for (const tenant of tenants) {
      const listed = await storage.plants.list(tenant, undefined, PLANTS + 1);
      expect(listed).to.deep.equal(batch(tenant, 'new'));
    }
  });
});
