import { expect } from 'chai';
import { Redis } from 'ioredis';
import { encodeMember, plantsKey } from '../../../src/adapters/storage/redis/redis-plant-codec.js';
import { openRedisStorage } from '../../../src/adapters/storage/redis/open-redis-storage.js';
import { exportPlants } from '../../../src/application/plant-export.js';
import type { Storage } from '../../../src/ports/storage.js';
import { startRedisServer } from '../../support/redis-server.js';
import { suiteServer } from '../../support/server-requirement.js';

const TENANTS = 5000;
const PAGE = 100;

/** SCAN commands the server ran since its statistics were last reset. */
async function scanCalls(redis: Redis): Promise<number> {
  const stats = await redis.info('commandstats');
  return Number(/cmdstat_scan:calls=(\d+)/.exec(stats)?.[1] ?? 0);
}

async function exported(storage: Storage): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of exportPlants(storage.plants, { pageSize: PAGE })) lines.push(line);
  return lines.slice(1, -1).map((line) => (JSON.parse(line) as { tenant: string }).tenant);
}

// A server of the suite's own: its command statistics count this suite's commands only.
describe('Redis tenants at scale', () => {
  const redis = suiteServer(
    'Redis',
    () => startRedisServer(),
    (server) => server.close(),
  );
  let raw: Redis;
  let storage: Storage;
  const names = Array.from({ length: TENANTS }, (_, i) => `t-${String(i).padStart(5, '0')}`);

  before(async () => {
    const { url, prefix } = redis();
    raw = new Redis(url);
    storage = await openRedisStorage({ url, prefix });
    const pipeline = raw.pipeline();
    for (const name of names)
      pipeline.zadd(plantsKey(prefix, name), 0, encodeMember({ id: 1n, name: 'p' }));
    await pipeline.exec();
  });
  after(async () => {
    await storage?.close();
    raw?.disconnect();
  });

  it('when an export pages through thousands of tenants, then the keyspace is scanned once, not once a page', async () => {
    await raw.config('RESETSTAT');

    const tenants = await exported(storage);

    expect(tenants).to.deep.equal(names);
    // One pass reads about SCAN_COUNT (1,000) keys a call; a pass a page would be 50 times that.
    expect(await scanCalls(raw)).to.be.at.most((2 * TENANTS) / 1000 + 2);
  });

  it('when a tenant is added after an export, then the next export finds it', async () => {
    await exported(storage);
    await storage.plants.insert('t-late', { id: 1n, name: 'p' });

    expect(await exported(storage)).to.deep.equal([...names, 't-late']);
  });
});
