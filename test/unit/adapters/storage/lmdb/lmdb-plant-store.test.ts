import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openLmdbStorage } from '../../../../../src/adapters/storage/lmdb/open-lmdb-storage.js';
import type { OpenedStorage } from '../../../../../src/adapters/limits/limiter-store.js';
import type { StoredPlant } from '../../../../../src/domain/plant.js';

const plants = (from: number, to: number, name = 'plant'): StoredPlant[] =>
  Array.from({ length: to - from + 1 }, (_, i) => ({
    id: BigInt(from + i),
    name: `${name} ${from + i}`,
  }));

describe('the embedded store (lmdb) plant store read beside another process', () => {
  let directory: string;
  let reader: OpenedStorage;
  let writer: OpenedStorage;
  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), 'plant-store-lmdb-pages-'));
    reader = await openLmdbStorage({ dataDir: directory });
    writer = await openLmdbStorage({ dataDir: directory });
  });
  afterEach(async () => {
    await Promise.all([reader.close(), writer.close()]);
    rmSync(directory, { recursive: true, force: true });
  });

  // Each list three times within a millisecond: lmdb-js would answer them from one read transaction
  // unless the store reads the latest, and a write after them must still be seen.
  const listed = async (after?: bigint, limit = 3): Promise<StoredPlant[]> => {
    const first = await reader.plants.list('t', after, limit);
    expect(await reader.plants.list('t', after, limit)).to.deep.equal(first);
    const third = await reader.plants.list('t', after, limit);
    expect(third).to.deep.equal(first);
    return third;
  };

  it('when another store on the directory inserts a plant, then the next list shows it', async () => {
    await writer.plants.importBatch('t', plants(1, 5), false);
    expect(await listed()).to.deep.equal(plants(1, 3));

    await writer.plants.insert('t', { id: 0n, name: 'first' });

    expect(await listed()).to.deep.equal([{ id: 0n, name: 'first' }, ...plants(1, 2)]);
  });

  it('when another store on the directory deletes a plant, then the next list no longer shows it', async () => {
    await writer.plants.importBatch('t', plants(1, 5), false);
    expect(await listed(1n)).to.deep.equal(plants(2, 4));

    await writer.plants.delete('t', 3n);

    expect(await listed(1n)).to.deep.equal([...plants(2, 2), ...plants(4, 5)]);
  });

  it('when another store on the directory replaces plants by an import, then the next list shows the new ones', async () => {
    await writer.plants.importBatch('t', plants(1, 5), false);
    expect(await listed()).to.deep.equal(plants(1, 3));

    expect(await writer.plants.importBatch('t', plants(2, 2, 'renamed'), true)).to.deep.equal([
      'replaced',
    ]);

    expect(await listed()).to.deep.equal([
      ...plants(1, 1),
      ...plants(2, 2, 'renamed'),
      ...plants(3, 3),
    ]);
  });

  it('when another store on the directory stores plants by an import, then the next list shows them', async () => {
    await writer.plants.importBatch('t', plants(5, 9), false);
    expect(await listed()).to.deep.equal(plants(5, 7));

    await writer.plants.importBatch('t', plants(1, 2), false);

    expect(await listed()).to.deep.equal([...plants(1, 2), ...plants(5, 5)]);
  });

  it('when an import changes nothing, then the pages read stay valid and equal', async () => {
    await writer.plants.importBatch('t', plants(1, 5), false);
    const before = await listed();

    expect(await writer.plants.importBatch('t', plants(1, 2), false)).to.deep.equal([
      'present',
      'present',
    ]);
    expect(await writer.plants.importBatch('t', plants(1, 1, 'other'), false)).to.deep.equal([
      'conflict',
    ]);

    expect(await listed()).to.deep.equal(before);
  });

  it('when a tenant is emptied and filled again with the same ids, then the list shows the new plants', async () => {
    await writer.plants.importBatch('t', plants(1, 2), false);
    expect(await listed()).to.deep.equal(plants(1, 2));

    await writer.plants.delete('t', 1n);
    await writer.plants.delete('t', 2n);
    expect(await listed()).to.deep.equal([]);
    await writer.plants.importBatch('t', plants(1, 2, 'again'), false);

    expect(await listed()).to.deep.equal(plants(1, 2, 'again'));
  });

  it('when a write lands between two lists of one store, then a page of another tenant is still answered as read', async () => {
    await writer.plants.importBatch('t', plants(1, 3), false);
    await writer.plants.importBatch('u', plants(1, 3, 'other'), false);
    const other = await reader.plants.list('u', undefined, 3);

    await writer.plants.insert('t', { id: 9n, name: 'nine' });

    expect(await reader.plants.list('u', undefined, 3)).to.deep.equal(other);
    expect(await listed(undefined, 10)).to.deep.equal([...plants(1, 3), { id: 9n, name: 'nine' }]);
  });
});
