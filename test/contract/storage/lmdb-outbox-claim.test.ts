import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openEnvironment } from '../../../src/adapters/storage/lmdb/lmdb-environment.js';
import { openLmdbStorage } from '../../../src/adapters/storage/lmdb/open-lmdb-storage.js';
import { newSubscription } from '../../support/webhook-subscription.js';

// The due index of earlier versions began with the due time (8 bytes), then the tenant's prefix
// and the delivery key; this one begins with the tenant. What an earlier version left due must
// still be claimed after an upgrade.
describe('LMDB outbox: the due index of an earlier version', function () {
  this.timeout(20_000);
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'plant-store-lmdb-outbox-'));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('when the due index holds time-first keys, then the next claim takes their deliveries, once', async () => {
    const dataDir = join(directory, 'data');
    const storage = await openLmdbStorage({ dataDir });
    await storage.webhooks!.add(newSubscription('old'));
    for (const id of [1n, 2n]) {
      const plant = { id, name: `plant ${id}` };
      await storage.plants.insert('old', plant, { type: 'plant.created', plant });
    }
    await storage.close();
    // Rewritten as an earlier version wrote them: time first.
    const dbs = openEnvironment(dataDir);
    await dbs.root.transaction(() => {
      for (const key of [...dbs.due.getKeys({})]) {
        const prefixEnd = 3 + key.readUInt16BE(1);
        const legacy = Buffer.concat([
          key.subarray(prefixEnd, prefixEnd + 8),
          key.subarray(1, prefixEnd),
          key.subarray(prefixEnd + 8),
        ]);
        void dbs.due.remove(key);
        void dbs.due.put(legacy, true);
      }
    });
    expect([...dbs.due.getKeys({})].map((key) => key[0])).to.deep.equal([0, 0]);
    await dbs.root.close();

    const reopened = await openLmdbStorage({ dataDir });
    try {
      const now = new Date(Date.now() + 1000);
      const claimed = await reopened.outbox!.claim(now, 10, 60_000);
      expect(claimed.map((delivery) => delivery.tenant)).to.deep.equal(['old', 'old']);
      expect(await reopened.outbox!.claim(now, 10, 60_000)).to.deep.equal([]);
      expect(await reopened.outbox!.size('old')).to.equal(2);
    } finally {
      await reopened.close();
    }
  });
});
