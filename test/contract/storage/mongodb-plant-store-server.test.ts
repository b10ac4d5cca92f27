import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Long, MongoClient, MongoNetworkError, MongoServerError, type Db } from 'mongodb';
import { ConfigError } from '../../../src/config/index.js';
import { isOutage } from '../../../src/adapters/storage/mongodb/mongo-client.js';
import {
  COLLECTION,
  INDEX_NAME,
  TAG_INDEX,
} from '../../../src/adapters/storage/mongodb/mongo-plant-store.js';
import { databaseName } from '../../../src/adapters/storage/mongodb/mongo-client.js';
import { openMongoStorage } from '../../../src/adapters/storage/mongodb/open-mongo-storage.js';
import { StorageOpenError } from '../../../src/adapters/storage/storage-open-error.js';
import { isPlantError, type PlantError } from '../../../src/domain/errors.js';
import type { Logger } from '../../../src/ports/logger.js';
import type { PlantStore } from '../../../src/ports/plant-store.js';
import type { Storage } from '../../../src/ports/storage.js';
import { MAX_PLANT_ID, MIN_PLANT_ID } from '../../../src/domain/plant-id.js';
import { freePort } from '../../support/free-port.js';
import {
  startMongoServer,
  startStoppableMongo,
  withDatabase,
  type MongoServer,
} from '../../support/mongo-server.js';
import { rejection } from '../../support/rejection.js';
import { serverMissing } from '../../support/server-requirement.js';

/** Fails unless the operation rejects with storage-unavailable within 2.5 s. */
async function expectUnavailable(operation: Promise<unknown>): Promise<void> {
  const started = performance.now();
  const error = await rejection(operation);
  expect(isPlantError(error), String(error)).to.equal(true);
  expect((error as PlantError).code).to.equal('storage-unavailable');
  expect((error as PlantError).message).to.equal('storage is unavailable');
  expect(performance.now() - started).to.be.below(2500);
}

/** A logger keeping each info line as "message index plants"; `onLine` runs after each. */
function recording(lines: string[], onLine = (): void => {}): Logger {
  const ignore = (): void => {};
  return {
    debug: ignore,
    warn: ignore,
    error: ignore,
    info(fields: { index?: string; plants?: number }, message?: string) {
      if (fields.index !== TAG_INDEX) return;
      lines.push(`${message} ${fields.index} ${fields.plants}`);
      onLine();
    },
  };
}

describe('MongoPlantStore without a server', () => {
  it('when the URL has a path, then it names the database, else plant_store', () => {
    expect(databaseName('mongodb://h:1/garden?w=majority')).to.equal('garden');
    expect(databaseName('mongodb://u:p%2F@a:1,b:2/garden')).to.equal('garden');
    expect(databaseName('mongodb+srv://u:p@cluster0.example.net/?retryWrites=true')).to.equal(
      'plant_store',
    );
    expect(databaseName('mongodb://127.0.0.1:27017')).to.equal('plant_store');
  });

  it('when an error means the server is gone or failing over, then it counts as an outage; other errors do not', () => {
    const epipe = Object.assign(new Error('This socket has been ended by the other party'), {
      code: 'EPIPE',
    });

    expect(isOutage(new MongoNetworkError('connection reset'))).to.equal(true);
    expect(isOutage(epipe)).to.equal(true);
    expect(isOutage(new MongoServerError({ message: 'shutting down', code: 11600 }))).to.equal(
      true,
    );
    expect(isOutage(new MongoServerError({ message: 'E11000', code: 11000 }))).to.equal(false);
    expect(isOutage(new MongoServerError({ message: 'auth failed', code: 18 }))).to.equal(false);
    expect(isOutage(new TypeError('bug'))).to.equal(false);
  });

  it('when the URL is not a MongoDB URL, then opening fails with a ConfigError naming MONGODB_URL', async () => {
    const error = await rejection(openMongoStorage({ url: 'http://example.com/' }), ConfigError);

    expect(error.message).to.match(/^MONGODB_URL /);
  });

  it('when the server stays unreachable, then opening fails after the start-up bound in one line naming MONGODB_URL', async () => {
    const url = `mongodb://user:secret@127.0.0.1:${await freePort()}/plant_store`;

    const started = performance.now();
    const error = await rejection(openMongoStorage({ url }, { startupTimeoutMs: 1000 }));
    const ms = performance.now() - started;

    expect(error).to.be.instanceOf(StorageOpenError);
    expect((error as Error).message).to.match(
      /^MongoDB at 127\.0\.0\.1:\d+ \(MONGODB_URL\) is not ready after 1 s \(connection refused\)$/,
    );
    expect((error as Error).message).to.not.match(/secret|\n/);
    expect(ms).to.be.within(1000, 2500);
  });
});

describe('MongoPlantStore on a server', () => {
  let server: MongoServer | undefined;
  let storage: Storage | undefined;
  let store: PlantStore;
  let raw: MongoClient;
  let tenant: string;

  before(async function () {
    const found = await startMongoServer();
    if (typeof found === 'string') return serverMissing(this, 'MongoDB', found);
    server = found;
    storage = await openMongoStorage(server);
    store = storage.plants;
    // Longs stay Long objects here, so that the stored BSON type shows.
    raw = new MongoClient(server.url, { promoteLongs: false, useBigInt64: false });
  });
  after(async () => {
    await storage?.close();
    await raw?.close();
    await server?.dispose();
  });
  beforeEach(() => {
    tenant = `t-${randomUUID()}`;
  });

  it('when opened, then a unique index on (tenant, id) and one on (tenant, tag, id) exist, and opening again keeps them', async () => {
    const again = await openMongoStorage(server!);
    await again.close();

    const indexes = await raw.db().collection(COLLECTION).listIndexes().toArray();

    const index = indexes.find((candidate) => candidate.name === INDEX_NAME);
    expect(index?.key).to.deep.equal({ tenant: 1, id: 1 });
    expect(index?.unique).to.equal(true);
    const tagIndex = indexes.find((candidate) => candidate.name === TAG_INDEX);
    expect(tagIndex?.key).to.deep.equal({ tenant: 1, tag: 1, id: 1 });
    expect(tagIndex?.unique).to.not.equal(true);
    expect(indexes.filter((candidate) => 'tenant' in candidate.key)).to.have.length(2);
  });

  describe('plants stored by the version before the tags filter', () => {
    let database: Db;
    let url: string;
    const old = [
      { id: 2n ** 53n + 1n, name: 'a', tag: 'aroid' },
      { id: -5n, name: 'b', tag: '' },
      { id: 7n, name: 'c' },
      { id: 2n ** 53n, name: 'd', tag: 'fern' },
      { id: 9n, name: 'e', tag: 'aroid' },
    ];

    beforeEach(async () => {
      // What the previous version left: its documents, and its one index on (tenant, id).
      database = raw.db(`plant_store_old_${randomUUID().replaceAll('-', '')}`);
      url = withDatabase(server!.url, database.databaseName);
      const plants = database.collection(COLLECTION);
      await plants.createIndex({ tenant: 1, id: 1 }, { unique: true, name: INDEX_NAME });
      await plants.insertMany(
        old.map(({ id, ...plant }) => ({ tenant, id: Long.fromBigInt(id), ...plant })),
      );
    });
    afterEach(() => database.dropDatabase());
    const indexNames = async (): Promise<unknown[]> =>
      (await database.collection(COLLECTION).listIndexes().toArray()).map((index) => index.name);

    it('when opened, then they are indexed by tag once, said in two lines, and found by the filter', async () => {
      const logged: string[] = [];
      const logger = recording(logged);

      const opened = await openMongoStorage({ url }, { logger });
      try {
        expect(await opened.plants.list(tenant, undefined, 10, ['', 'aroid'])).to.deep.equal([
          old[1],
          old[4],
          old[0],
        ]);
        expect(await opened.plants.list(tenant, 9n, 10, ['fern'])).to.deep.equal([old[3]]);
      } finally {
        await opened.close();
      }
      expect(logged).to.deep.equal([
        `indexing the stored plants by tag (once) ${TAG_INDEX} 5`,
        `stored plants indexed by tag ${TAG_INDEX} 5`,
      ]);

      logged.length = 0;
      await (await openMongoStorage({ url }, { logger })).close();
      expect(logged, 'a later start').to.deep.equal([]);
    });

    it('when the first start stops while indexing, then the next start completes it', async () => {
      const stopped = new AbortController();
      const logged: string[] = [];
      const logger = recording(logged, () => stopped.abort());

      const error = await rejection(openMongoStorage({ url }, { logger, signal: stopped.signal }));
      expect(logged).to.deep.equal([`indexing the stored plants by tag (once) ${TAG_INDEX} 5`]);
      expect(error).to.be.instanceOf(Error);
      expect(await indexNames(), 'after the stop').to.not.include(TAG_INDEX);

      logged.length = 0;
      const opened = await openMongoStorage({ url }, { logger: recording(logged) });
      try {
        expect(await opened.plants.list(tenant, undefined, 10, ['aroid'])).to.deep.equal([
          old[4],
          old[0],
        ]);
      } finally {
        await opened.close();
      }
      expect(logged).to.have.length(2);
      expect(await indexNames()).to.include(TAG_INDEX);
    });
  });

  it('when the server is FerretDB v1, then the opened storage keeps no quota (it could not hold one); on MongoDB it does', async () => {
    const counted = await openMongoStorage({ url: server!.url, maxPlantsPerTenant: 1 });
    try {
      await counted.plants.insert(tenant, { id: 1n, name: 'a' });
      const second = await counted.plants
        .insert(tenant, { id: 2n, name: 'b' })
        .catch(() => 'refused');

      expect(second).to.equal(server!.kind === 'ferretdb' ? true : 'refused');
    } finally {
      await counted.close();
    }
  });

  it('when plants are stored, then each document holds its id as a BSON int64, small ids too', async () => {
    const ids = [MIN_PLANT_ID, -1n, 0n, 1n, 2n ** 53n + 1n, MAX_PLANT_ID];
    for (const id of ids) await store.insert(tenant, { id, name: `plant ${id}`, tag: 't' });

    const documents = await raw
      .db()
      .collection(COLLECTION)
      .find({ tenant })
      .sort({ id: 1 })
      .toArray();

    expect(documents.map((document) => Object.keys(document).sort())).to.deep.equal(
      ids.map(() => ['_id', 'id', 'name', 'tag', 'tenant']),
    );
    for (const document of documents) expect(document.id).to.be.instanceOf(Long);
    expect(documents.map((document) => (document.id as Long).toBigInt())).to.deep.equal(ids);
  });

  it('when a non-unique (tenant, id) index exists, then opening fails rather than allow duplicates', async () => {
    const database = raw.db(`plant_store_conflict_${randomUUID().replaceAll('-', '')}`);
    await database.collection(COLLECTION).createIndex({ tenant: 1, id: 1 }, { name: INDEX_NAME });

    try {
      const error = await rejection(
        openMongoStorage({ url: withDatabase(server!.url, database.databaseName) }),
      );

      expect(error).to.be.instanceOf(StorageOpenError);
      expect((error as Error).message).to.match(
        /\(MONGODB_URL\) has a non-unique index on \(tenant, id\)/,
      );
    } finally {
      await database.dropDatabase();
    }
  });

  it('when a tenant or a name looks like a query operator, then it is only a value', async () => {
    const operatorLike = '{"$ne": null}';
    await store.insert('$ne', { id: 1n, name: operatorLike, tag: '$gt' });

    expect(await store.list(tenant, undefined, 10)).to.deep.equal([]);
    expect(await store.list('$ne', undefined, 10)).to.deep.equal([
      { id: 1n, name: operatorLike, tag: '$gt' },
    ]);
    expect(await store.list('$ne', undefined, 10, ['$gt'])).to.deep.equal([
      { id: 1n, name: operatorLike, tag: '$gt' },
    ]);
    const operator = { $ne: null } as unknown as string;
    await rejection(store.list('$ne', undefined, 10, [operator]), TypeError);
    expect(await store.delete('$ne', 1n)).to.equal(true);
  });

  it('when a tag is rare among many plants, then a filtered page reads about as many index keys as it returns (MongoDB)', async function () {
    if (server!.kind === 'ferretdb') {
      console.warn('    skipped on FerretDB: v1 reads the whole collection for any find');
      return this.skip();
    }
    await raw
      .db()
      .collection(COLLECTION)
      .insertMany(
        Array.from({ length: 2000 }, (_, i) => ({
          tenant,
          id: Long.fromNumber(i),
          name: `p${i}`,
          tag: i % 500 === 0 ? 'rare' : 'common',
        })),
      );
    const scanned = async (): Promise<number> => {
      const { metrics } = await raw.db('admin').command({ serverStatus: 1 });
      return Number(metrics.queryExecutor.scanned);
    };

    const before = await scanned();
    const page = await store.list(tenant, 0n, 3, ['none', 'rare']);
    const keys = (await scanned()) - before;

    expect(page.map((plant) => plant.id)).to.deep.equal([500n, 1000n, 1500n]);
    // One range per tag merged by id; the (tenant, id) index would walk 1,500 keys.
    expect(keys).to.be.at.most(10);
  });

  it("when a page is longer than the driver's first batch, then it is complete and in order", async () => {
    const ids = Array.from({ length: 250 }, (_, i) => BigInt(i) * 3n - 300n);
    await raw
      .db()
      .collection(COLLECTION)
      .insertMany(ids.map((id) => ({ tenant, id: Long.fromBigInt(id), name: `plant ${id}` })));

    const listed = await store.list(tenant, -300n, 1000);

    expect(listed.map((plant) => plant.id)).to.deep.equal(ids.slice(1));
  });
});

describe('MongoPlantStore through an outage', () => {
  let server: MongoServer | undefined;
  let storage: Storage | undefined;

  before(async function () {
    server = await startStoppableMongo(this);
  });
  after(async () => {
    await storage?.close();
    await server?.dispose();
  });

  it('when the server stops, then operations reject with storage-unavailable within 2.5 s, and succeed again once it is back', async () => {
    const tenant = `t-${randomUUID()}`;
    storage = await openMongoStorage(server!);
    const store = storage.plants;
    await store.insert(tenant, { id: 1n, name: 'before' });

    await server!.stop!();

    await expectUnavailable(store.insert(tenant, { id: 2n, name: 'during' }));
    await expectUnavailable(store.list(tenant, undefined, 10));
    await expectUnavailable(store.list(tenant, undefined, 10, ['a', 'b']));
    await expectUnavailable(store.get(tenant, 1n));
    await expectUnavailable(store.delete(tenant, 1n));
    await expectUnavailable(store.ping());

    await server!.start!();

    await store.ping();
    expect(await store.insert(tenant, { id: 3n, name: 'after' })).to.equal(true);
    expect(await store.list(tenant, undefined, 10)).to.deep.equal([
      { id: 1n, name: 'before' },
      { id: 3n, name: 'after' },
    ]);
  });
});
