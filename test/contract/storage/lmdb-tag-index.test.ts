import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { DATA_FILE } from '../../../src/adapters/storage/lmdb/lmdb-data-file.js';
import {
  openEnvironment,
  plantKey,
  TAG_INDEX_FROM,
  tenantPrefix,
} from '../../../src/adapters/storage/lmdb/lmdb-environment.js';
import { checkIntegrity } from '../../../src/adapters/storage/lmdb/lmdb-integrity.js';
import {
  buildTagIndex,
  LmdbPlantStore,
} from '../../../src/adapters/storage/lmdb/lmdb-plant-store.js';
import { LmdbWriter } from '../../../src/adapters/storage/lmdb/lmdb-writer.js';
import { openLmdbStorage } from '../../../src/adapters/storage/lmdb/open-lmdb-storage.js';
import type { StoredPlant } from '../../../src/domain/plant.js';
import type { Logger } from '../../../src/ports/logger.js';
// After the store's modules, which point lmdb at the rebuilt addon before it loads.
import { open } from 'lmdb';
import { rejection } from '../../support/rejection.js';

/** Plants 1..count of a tenant: every third a fern, every third an aroid, the rest untagged. */
const plants = (count: number): StoredPlant[] =>
  Array.from({ length: count }, (_, i) => {
    const id = BigInt(i + 1);
    if (i % 3 === 0) return { id, name: `fern ${id}`, tag: 'fern' };
    if (i % 3 === 1) return { id, name: `aroid ${id}`, tag: 'aroid' };
    return { id, name: `plant ${id}` };
  });

const tagged = (held: StoredPlant[], tag: string): StoredPlant[] =>
  held.filter((plant) => plant.tag === tag);

/** Writes an environment as format 1 wrote it: plants and counts, no tag index. */
async function writeFormatOne(dataDir: string, tenants: Record<string, StoredPlant[]>) {
  const root = open({ path: join(dataDir, DATA_FILE) });
  const meta = root.openDB({ name: 'meta' });
  const plantsDb = root.openDB<unknown, Buffer>({ name: 'plants', keyEncoding: 'binary' });
  const counts = root.openDB<number, Buffer>({ name: 'tenants', keyEncoding: 'binary' });
  await root.transaction(() => {
    void meta.put('format', { store: 'plant-store', format: 1 });
    for (const [tenant, held] of Object.entries(tenants)) {
      for (const { id, name, tag } of held) {
        void plantsDb.put(
          plantKey(tenantPrefix(tenant), id),
          tag === undefined ? [name] : [name, tag],
        );
      }
      void counts.put(Buffer.from(tenant), held.length);
    }
  });
  await root.close();
}

const recorder = () => {
  const lines: string[] = [];
  const logger: Logger = {
    debug: () => {},
    info: (_fields, line) => void lines.push(line ?? ''),
    warn: (_fields, line) => void lines.push(line ?? ''),
    error: (_fields, line) => void lines.push(line ?? ''),
  };
  return { lines, logger };
};

describe('the embedded store (lmdb) tag index built for plants stored by format 1', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'plant-store-lmdb-tags-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('when a format 1 store opens, then its plants are found by tag, two lines say so, and the next start builds nothing', async () => {
    await writeFormatOne(dataDir, { t: plants(30), u: plants(4) });
    const { lines, logger } = recorder();

    const storage = await openLmdbStorage({ dataDir }, { logger });
    try {
      expect(await storage.plants.list('t', undefined, 100, ['fern'])).to.deep.equal(
        tagged(plants(30), 'fern'),
      );
      expect(await storage.plants.list('t', 3n, 4, ['aroid', 'fern'])).to.deep.equal(
        plants(30)
          .filter((plant) => plant.id > 3n && plant.tag !== undefined)
          .slice(0, 4),
      );
      expect(await storage.plants.list('u', undefined, 100, ['aroid'])).to.deep.equal(
        tagged(plants(4), 'aroid'),
      );
      expect(lines).to.deep.equal([
        'building the tag index of the plants stored before it, from the start',
        lines[1],
      ]);
      expect(lines[1]).to.match(
        /^the tag index is built: 34 plants read, 23 entries added in \d+ ms$/,
      );
      expect((await storage.check!()).problems).to.deep.equal([]);
    } finally {
      await storage.close();
    }

    const again = recorder();
    await (await openLmdbStorage({ dataDir }, { logger: again.logger })).close();
    expect(again.lines).to.deep.equal([]);
  });

  it('when the build is interrupted and plants are written meanwhile, then the next start goes on from where it stopped and the index agrees with the plants', async () => {
    await writeFormatOne(dataDir, { t: plants(25) });
    const dbs = openEnvironment(dataDir);
    const writer = new LmdbWriter(dbs.root);
    const stop = new AbortController();
    let writes = 0;
    const stopping = {
      write: <T>(callback: () => T): Promise<T> => {
        if (++writes === 2) stop.abort(new Error('stopping'));
        return writer.write(callback);
      },
    };
    const first = recorder();
    try {
      const error = await rejection(
        buildTagIndex(dbs, stopping, { logger: first.logger, signal: stop.signal, batch: 5 }),
      );
      expect((error as Error).message).to.equal('stopping');
      expect(first.lines.at(-1)).to.equal(
        'tag index build stopped after tenant "t" plant 10; the next start goes on',
      );
      expect(dbs.meta.get(TAG_INDEX_FROM)).to.equal(
        plantKey(tenantPrefix('t'), 10n).toString('hex'),
      );
      // Writes meanwhile keep their own entries: a new fern, an aroid made a fern, a fern deleted.
      const store = new LmdbPlantStore(dbs, writer, 0);
      await store.insert('t', { id: 26n, name: 'fern 26', tag: 'fern' });
      await store.importBatch('t', [{ id: 14n, name: 'fern 14', tag: 'fern' }], true);
      await store.delete('t', 19n);
    } finally {
      await dbs.root.close();
    }

    const { lines, logger } = recorder();
    const storage = await openLmdbStorage({ dataDir }, { logger });
    try {
      const expected = [
        ...plants(25).filter((plant) => plant.id !== 19n && plant.id !== 14n),
        { id: 14n, name: 'fern 14', tag: 'fern' },
        { id: 26n, name: 'fern 26', tag: 'fern' },
      ].sort((a, b) => (a.id < b.id ? -1 : 1));
      expect(await storage.plants.list('t', undefined, 100, ['fern'])).to.deep.equal(
        tagged(expected, 'fern'),
      );
      expect(await storage.plants.list('t', undefined, 100, ['aroid'])).to.deep.equal(
        tagged(expected, 'aroid'),
      );
      expect(lines[0]).to.equal(
        'building the tag index of the plants stored before it, after tenant "t" plant 10',
      );
      // Plants 11 to 26 but 19: the first ten were done before the stop.
      expect(lines[1]).to.match(/^the tag index is built: 15 plants read, \d+ entries added/);
      expect((await storage.check!()).problems).to.deep.equal([]);
    } finally {
      await storage.close();
    }
  });

  it('when the service stops while it opens, then opening rejects, logs where the build stopped, and the next start builds the index', async () => {
    await writeFormatOne(dataDir, { t: plants(3) });
    const stopped = recorder();
    const stop = new AbortController();
    stop.abort(new Error('stopping'));

    const error = await rejection(
      openLmdbStorage({ dataDir }, { logger: stopped.logger, signal: stop.signal }),
    );

    expect((error as Error).message).to.equal('stopping');
    expect(stopped.lines.at(-1)).to.equal(
      'tag index build stopped from the start; the next start goes on',
    );
    const storage = await openLmdbStorage({ dataDir });
    try {
      expect(await storage.plants.list('t', undefined, 10, ['fern'])).to.deep.equal(
        tagged(plants(3), 'fern'),
      );
    } finally {
      await storage.close();
    }
  });

  it('when an untyped caller imports a tag that is not well-formed Unicode, then nothing of the batch is written', async () => {
    const storage = await openLmdbStorage({ dataDir });
    try {
      const batch = [
        { id: 1n, name: 'fern 1', tag: 'fern' },
        { id: 2n, name: 'odd', tag: '\uD800' },
      ];

      const error = await rejection(
        Promise.resolve().then(() => storage.plants.importBatch('t', batch, false)),
      );

      expect((error as Error).message).to.include('well-formed Unicode');
      expect(await storage.plants.list('t', undefined, 10)).to.deep.equal([]);
      expect(await storage.plants.list('t', undefined, 10, ['fern'])).to.deep.equal([]);
    } finally {
      await storage.close();
    }
  });

  it('when an index entry is missing or names another tag, then the check says so', async () => {
    const storage = await openLmdbStorage({ dataDir });
    await storage.plants.importBatch('t', plants(6), false);
    await storage.close();
    const dbs = openEnvironment(dataDir);
    try {
      // By tag length first: fern 1, fern 4, aroid 2, aroid 5.
      const index = [...dbs.plants.getKeys({ start: Buffer.from([0xff, 0xff]) })];
      await dbs.plants.remove(index[0]!);
      await dbs.plants.remove(index[1]!);
      const wrong = Buffer.from(index[2]!);
      wrong[wrong.length - 1] = 1; // plant 1, a fern, among the aroids
      await dbs.plants.put(wrong, 'fern 1');

      const { problems } = checkIntegrity(dbs);

      expect(problems).to.have.length(2);
      expect(problems[0]).to.include('names no plant holding its tag and name');
      expect(problems[1]).to.equal('the tag index holds 3 entries for 4 tagged plants');
    } finally {
      await dbs.root.close();
    }
  });
});
