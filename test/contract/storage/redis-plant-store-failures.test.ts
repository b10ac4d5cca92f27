import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import {
  decodeMember,
  encodeMember,
  plantsKey,
  tagsKey,
} from '../../../src/adapters/storage/redis/redis-plant-codec.js';
import { openRedisStorage } from '../../../src/adapters/storage/redis/open-redis-storage.js';
import { StorageOpenError } from '../../../src/adapters/storage/storage-open-error.js';
import { PlantError } from '../../../src/domain/errors.js';
import type { PlantStore } from '../../../src/ports/plant-store.js';
import type { Storage } from '../../../src/ports/storage.js';
import { freePort } from '../../support/free-port.js';
import {
  startRedisCluster,
  startRedisServer,
  type RedisProcess,
} from '../../support/redis-server.js';
import { rejection } from '../../support/rejection.js';
import { serverMissing } from '../../support/server-requirement.js';

const BOUND_MS = 2500;

/** Resolves how long the operation took to reject; fails unless it rejected with storage-unavailable. */
async function unavailableWithin(operation: Promise<unknown>): Promise<number> {
  const started = Date.now();
  const error = await rejection(operation, PlantError);
  expect(error.code).to.equal('storage-unavailable');
  expect(error.message).to.equal('storage is unavailable');
  return Date.now() - started;
}

/** Polls until the store answers again, as a caller retrying would. */
async function untilAnswering(store: PlantStore, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await store.ping();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(50); // a poll's interval: a real server's restart is the subject
    }
  }
}

describe('RedisPlantStore on a failing Redis', function () {
  let server: RedisProcess;
  let close: (() => Promise<void>) | undefined;
  let admin: Redis;
  let storage: Storage;
  let store: PlantStore;
  let tenant: string;

  before(async function () {
    const started = await startRedisServer();
    if (typeof started === 'string') return serverMissing(this, 'Redis', started);
    ({ server, close } = started);
    admin = new Redis(server.port, '127.0.0.1');
    // Its refused reconnections while Redis is stopped are expected, not to be printed.
    admin.on('error', () => {});
  });
  after(async () => {
    admin?.disconnect();
    await close?.();
  });
  beforeEach(async () => {
    tenant = `t-${randomUUID()}`;
    storage = await openRedisStorage({ url: server.url });
    store = storage.plants;
  });
  afterEach(async () => {
    await storage.close();
  });

  it('when plants are stored, then a tenant is one sorted set inside a hash tag, one member per plant, and its tag index beside it', async () => {
    const odd = `${tenant}}{:*`;
    await store.insert(odd, { id: -1n, name: 'a', tag: '' });
    await store.insert(odd, { id: 2n ** 63n - 1n, name: 'b' });

    const tag = `plant-store:{${Buffer.from(odd).toString('base64url')}}`;
    const keys = await admin.keys(`plant-store:*${Buffer.from(odd).toString('base64url')}*`);
    expect(keys.sort()).to.deep.equal([`${tag}:plants`, `${tag}:tags`]);
    expect(await admin.type(keys[0]!)).to.equal('zset');
    // The empty tag's hex is empty: its entries start with the colon.
    expect(await admin.zrange(`${tag}:tags`, '0', '-1')).to.deep.equal([
      ':7fffffffffffffff:{"name":"a","tag":""}',
    ]);
    const [first, , second] = await admin.zrange(keys[0]!, '0', '-1', 'WITHSCORES');
    expect([first, second]).to.deep.equal([
      '7fffffffffffffff:{"name":"a","tag":""}',
      'ffffffffffffffff:{"name":"b"}',
    ]);
    expect(await admin.zrangebyscore(keys[0]!, 0, 0)).to.have.length(2);

    await store.delete(odd, -1n);
    await store.delete(odd, 2n ** 63n - 1n);
    expect(await admin.exists(...keys)).to.equal(0);
  });

  it('when a storage is opened, then its plants and tokens share one connection', async () => {
    const connections = async () =>
      String(await admin.call('CLIENT', 'LIST'))
        .split('\n')
        .filter((line) => line.trim() !== '').length;
    const before = await connections();

    const opened = await openRedisStorage({ url: server.url });
    try {
      await opened.plants.insert(tenant, { id: 1n, name: 'shared' });
      await opened.tokens.list(tenant);

      expect(await connections()).to.equal(before + 1);
    } finally {
      await opened.close();
    }
  });

  it('when two stores use different prefixes, then they never see each other', async () => {
    const other = await openRedisStorage({ url: server.url, prefix: 'other:' });
    try {
      await store.insert(tenant, { id: 1n, name: 'mine' });

      expect(await other.plants.list(tenant, undefined, 10)).to.deep.equal([]);
      expect(await other.plants.insert(tenant, { id: 1n, name: 'theirs' })).to.equal(true);
      // Its plants, and the marker of its (empty) tag index migration.
      expect((await admin.keys(`other:*`)).sort()).to.deep.equal([
        `other:tag-index`,
        `other:{${Buffer.from(tenant).toString('base64url')}}:plants`,
      ]);
    } finally {
      await other.close();
    }
  });

  it('when connections are killed mid-burst, then every plant is whole, indexed once, and in the tag index exactly when tagged', async () => {
    // The burst and the kill wait in socket buffers while Redis is frozen, so that Redis reads the
    // long burst in parts and the kill lands in its middle.
    const name = (id: bigint): string => `plant ${id} ${'x'.repeat(200)}`;
    const ids = Array.from({ length: 2000 }, (_, i) => BigInt(i));
    server.pause();
    const inserts = ids.map((id) =>
      store.insert(
        tenant,
        id % 2n === 0n ? { id, name: name(id), tag: 'even' } : { id, name: name(id) },
      ),
    );
    const deletes = ids.filter((id) => id % 3n === 0n).map((id) => store.delete(tenant, id));
    const settled = Promise.allSettled([...inserts, ...deletes]);
    const kill = admin.call('CLIENT', 'KILL', 'TYPE', 'normal');
    // A real server paused while the burst is queued: its timing is the subject.
    await sleep(100);
    server.resume();
    await kill;

    const outcomes = await settled;
    await untilAnswering(store);

    const rejected = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []));
    expect(rejected.length).to.be.above(0);
    for (const error of rejected) {
      expect((error as PlantError).code).to.equal('storage-unavailable');
    }
    const members = await admin.zrange(plantsKey('plant-store:', tenant), '0', '-1');
    const stored = members.map(decodeMember);
    expect(new Set(stored.map((p) => p.id)).size).to.equal(stored.length);
    for (const plant of stored) expect(plant.name).to.equal(name(plant.id));
    expect(await store.list(tenant, undefined, 5000)).to.deep.equal(stored);
    const even = stored.filter((plant) => plant.id % 2n === 0n);
    expect(await store.list(tenant, undefined, 5000, ['even'])).to.deep.equal(even);
    expect(await admin.zcard(tagsKey('plant-store:', tenant))).to.equal(even.length);
  });

  it('when a storage opened without outage reporters loses its connection, then nothing is printed on the console', async () => {
    const printed: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => printed.push(args);
    try {
      await store.insert(tenant, { id: 1n, name: 'before' });
      await server.stop();
      // Long enough for several refused reconnections (50, 100, 150 ms apart): a real server's
      // absence is the subject, and the client's retries are not observable from outside.
      await sleep(400);
      await server.start();
      await untilAnswering(store);
    } finally {
      console.error = original;
    }

    expect(printed).to.deep.equal([]);
  });

  it('when Redis stops, then operations reject storage-unavailable in time; when it returns, the same store works', async () => {
    await store.insert(tenant, { id: 1n, name: 'before' });
    await server.stop();

    const waited = await Promise.all([
      unavailableWithin(store.insert(tenant, { id: 2n, name: 'during' })),
      unavailableWithin(store.list(tenant, undefined, 10)),
      unavailableWithin(store.list(tenant, undefined, 10, ['a', 'b'])),
      unavailableWithin(store.get(tenant, 1n)),
      unavailableWithin(store.delete(tenant, 1n)),
      unavailableWithin(store.importBatch(tenant, [{ id: 4n, name: 'i', tag: 'a' }], true)),
      unavailableWithin(store.ping()),
    ]);
    expect(Math.max(...waited)).to.be.below(BOUND_MS);

    await server.start();
    await untilAnswering(store);
    // The restarted server persists nothing, so the store starts empty.
    expect(await store.insert(tenant, { id: 3n, name: 'after' })).to.equal(true);
    expect(await store.list(tenant, undefined, 10)).to.deep.equal([{ id: 3n, name: 'after' }]);
  });

  it('when Redis hangs, then operations reject storage-unavailable in time; when it wakes, the same store works', async () => {
    await store.insert(tenant, { id: 1n, name: 'before' });
    server.pause();
    try {
      const waited = await Promise.all([
        unavailableWithin(store.insert(tenant, { id: 2n, name: 'during' })),
        unavailableWithin(store.list(tenant, undefined, 10)),
        unavailableWithin(store.list(tenant, undefined, 10, ['a', 'b'])),
        unavailableWithin(store.get(tenant, 1n)),
        unavailableWithin(store.ping()),
      ]);
      expect(Math.max(...waited)).to.be.below(BOUND_MS);
    } finally {
      server.resume();
    }

    await untilAnswering(store);
    expect((await store.list(tenant, undefined, 10)).map((p) => p.id)).to.include(1n);
  });

  it('when Redis hangs while the tag index is built at open, then open rejects in time naming Redis; the next open completes it', async () => {
    const prefix = `migrating-${randomUUID()}:`;
    await admin.zadd(plantsKey(prefix, tenant), 0, encodeMember({ id: 1n, name: 'old', tag: 'a' }));
    const quiet = () => {};
    // Frozen once the migration has read the tenants, before its first step.
    const logger = { debug: quiet, warn: quiet, error: quiet, info: () => server.pause() };
    const started = Date.now();
    try {
      const outcome = await rejection(
        openRedisStorage({ url: server.url, prefix }, { logger }),
        Error,
      );
      expect(Date.now() - started).to.be.below(BOUND_MS);
      expect(outcome).to.be.instanceOf(StorageOpenError);
      expect(outcome.message).to.match(/^Redis at .* \(REDIS_URL\) cannot index the tags: /);
    } finally {
      server.resume();
    }

    const reopened = await openRedisStorage({ url: server.url, prefix });
    try {
      expect(await reopened.plants.list(tenant, undefined, 10, ['a'])).to.deep.equal([
        { id: 1n, name: 'old', tag: 'a' },
      ]);
    } finally {
      await reopened.close();
    }
  });

  it('when Redis stays unreachable, then open rejects after the start-up bound with one line naming the address', async () => {
    const port = await freePort();
    const started = Date.now();

    // 1.1 s: a first attempt of 1 s, a pause of 100 ms, then a last attempt of a millisecond or
    // so, too short to see a refusal of its own: the reason must still be the refusal.
    const outcome = await rejection(
      openRedisStorage({ url: `redis://:secret@127.0.0.1:${port}` }, { startupTimeoutMs: 1100 }),
      Error,
    );

    expect(Date.now() - started).to.be.within(1100, BOUND_MS);
    expect(outcome).to.be.instanceOf(StorageOpenError);
    // The whole message on failure (chai shortens it): the reason is the part that can differ.
    expect(outcome.message, outcome.message).to.match(
      new RegExp(
        `^Redis at 127\\.0\\.0\\.1:${port} \\(REDIS_URL\\) is not ready after 1\\.1 s \\(connection refused\\)$`,
      ),
    );
    expect(outcome.message).to.not.include('secret');
    expect(outcome.message).to.not.include('\n');
  });
});

describe('RedisPlantStore on a Redis Cluster losing a master', function () {
  let cluster: Exclude<Awaited<ReturnType<typeof startRedisCluster>>, string> | undefined;
  let storage: Storage | undefined;
  let store: PlantStore;

  before(async function () {
    const started = await startRedisCluster();
    if (typeof started === 'string') return serverMissing(this, 'Redis Cluster', started);
    cluster = started;
    storage = await openRedisStorage(cluster);
    store = storage.plants;
  });
  after(async () => {
    await storage?.close();
    await cluster?.close();
  });

  /** Tenants whose plants live on the master that stops, and as many that live elsewhere. */
  async function tenantsByMaster(count: number): Promise<{ stopped: string[]; others: string[] }> {
    const master = cluster!.servers[1]!;
    const direct = new Redis(master.port, '127.0.0.1');
    const stopped: string[] = [];
    const others: string[] = [];
    try {
      while (stopped.length < count || others.length < count) {
        const tenant = `t-${randomUUID()}`;
        // A cluster node answers for its own slots and redirects (MOVED) for the others.
        const owned = await direct.exists(plantsKey(cluster!.prefix, tenant)).then(
          () => true,
          (error: Error) => {
            if (error.message.startsWith('MOVED ')) return false;
            throw error;
          },
        );
        const group = owned ? stopped : others;
        if (group.length < count) group.push(tenant);
      }
    } finally {
      direct.disconnect();
    }
    return { stopped, others };
  }

  it('when a master stops, then its tenants get storage-unavailable in time; when it returns, they are served again', async () => {
    const { stopped, others } = await tenantsByMaster(4);
    const tenants = [...stopped, ...others];
    for (const tenant of tenants) await store.insert(tenant, { id: 1n, name: 'x' });
    await cluster!.servers[1]!.stop();

    const outcomes = await Promise.all(
      tenants.map(async (tenant) => {
        const started = Date.now();
        const listed = await store.list(tenant, undefined, 5).then(
          () => 'listed',
          (error: PlantError) => error.code,
        );
        return { listed, ms: Date.now() - started };
      }),
    );
    // The stopped master's tenants cannot be served; the others may be, until the cluster
    // declares itself down (cluster-node-timeout).
    expect(outcomes.slice(0, stopped.length).map((o) => o.listed)).to.deep.equal(
      stopped.map(() => 'storage-unavailable'),
    );
    for (const { listed } of outcomes.slice(stopped.length))
      expect(listed).to.be.oneOf(['listed', 'storage-unavailable']);
    expect(Math.max(...outcomes.map((o) => o.ms))).to.be.below(BOUND_MS);

    await cluster!.servers[1]!.start();
    const deadline = Date.now() + 10_000;
    for (const tenant of tenants) {
      while (
        (await store.list(tenant, undefined, 5).then(
          () => true,
          () => false,
        )) === false
      ) {
        if (Date.now() > deadline) expect.fail(`tenant ${tenant} was not served again`);
        await sleep(100); // a poll's interval, until the real node is back
      }
    }
  });
});
