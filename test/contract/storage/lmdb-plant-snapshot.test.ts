import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { expect } from 'chai';
import { openLmdbStorage } from '../../../src/adapters/storage/lmdb/open-lmdb-storage.js';
import type { OpenedStorage } from '../../../src/adapters/limits/limiter-store.js';
import { rejection } from '../../support/rejection.js';

describe('a snapshot of the embedded store (lmdb)', () => {
  let directory: string;
  let storage: OpenedStorage;
  let peer: OpenedStorage;
  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), 'plant-store-lmdb-snapshot-'));
    storage = await openLmdbStorage({ dataDir: directory });
    // A second opening of the directory: another process's writes, as far as LMDB is concerned.
    peer = await openLmdbStorage({ dataDir: directory });
  });
  afterEach(async () => {
    await Promise.all([storage.close(), peer.close()]);
    rmSync(directory, { recursive: true, force: true });
  });

  const ids = (plants: { id: bigint }[]) => plants.map(({ id }) => id);

  it('when plants are created and deleted after it opens, here and by another opening, then its pages and tenants stay as the store was, across turns of the event loop', async () => {
    for (const id of [1n, 2n, 3n]) await storage.plants.insert('a', { id, name: `p${id}` });
    const snapshot = await storage.snapshot!();
    try {
      await storage.plants.insert('a', { id: 4n, name: 'later' });
      await peer.plants.delete('a', 1n);
      await peer.plants.insert('b', { id: 1n, name: 'new tenant' });
      // lmdb-js renews its read transactions as the event loop turns: a snapshot must not follow.
      await nextTurn();
      await nextTurn();

      expect(ids(await snapshot.list('a', undefined, 10))).to.deep.equal([1n, 2n, 3n]);
      expect(ids(await snapshot.list('a', 1n, 1))).to.deep.equal([2n]);
      expect(await snapshot.tenants(undefined, 10)).to.deep.equal(['a']);
      expect(ids(await storage.plants.list('a', undefined, 10))).to.deep.equal([2n, 3n, 4n]);
      expect(await storage.plants.tenants(undefined, 10)).to.deep.equal(['a', 'b']);
    } finally {
      snapshot.release();
    }
  });

  it('when released, then it reads no more, a second release changes nothing, and the storage closes', async () => {
    await storage.plants.insert('a', { id: 1n, name: 'p' });
    const snapshot = await storage.snapshot!();
    snapshot.release();
    snapshot.release();

    expect(await rejection(snapshot.list('a', undefined, 10))).to.be.instanceOf(Error);
    expect(ids(await storage.plants.list('a', undefined, 10))).to.deep.equal([1n]);
  });
});
