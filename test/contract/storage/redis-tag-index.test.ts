import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { openRedisStorage } from '../../../src/adapters/storage/redis/open-redis-storage.js';
import {
  createRedisClient,
  untilReady,
  type RedisClient,
} from '../../../src/adapters/storage/redis/redis-client.js';
import {
  encodeId,
  encodeMember,
  plantsKey,
  tagsKey,
} from '../../../src/adapters/storage/redis/redis-plant-codec.js';
import { RedisPlantStore } from '../../../src/adapters/storage/redis/redis-plant-store.js';
import { parseRedisUrl } from '../../../src/adapters/storage/redis/redis-url.js';
import type { StoredPlant } from '../../../src/domain/plant.js';
import type { Logger } from '../../../src/ports/logger.js';
import { REDIS_DEPLOYMENTS } from '../../support/redis-server.js';
import { suiteServer } from '../../support/server-requirement.js';

type Line = { level: string; fields: object; message: string | undefined };

/** A logger keeping its lines; `onDebug` sees each debug line as it comes. */
function recorder(onDebug: (count: number) => void = () => {}): Logger & { lines: Line[] } {
  const lines: Line[] = [];
  let debugs = 0;
  const log =
    (level: string) =>
    (fields: object, message?: string): void => {
      lines.push({ level, fields, message });
      if (level === 'debug') onDebug(++debugs);
    };
  return { lines, debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

const TAGS = ['aroid', '', undefined, '🌱 fern'];
const plantsOf = (count: number): StoredPlant[] =>
  Array.from({ length: count }, (_, i) => {
    const tag = TAGS[i % TAGS.length];
    const id = BigInt(i) * 2n ** 50n - 7n;
    return tag === undefined ? { id, name: `p${i}` } : { id, name: `p${i}`, tag };
  });
const tagged = (plants: StoredPlant[], tag: string | undefined) =>
  plants.filter((plant) => plant.tag === tag);

for (const [deployment, provide] of REDIS_DEPLOYMENTS) {
  describe(`Redis tag index migration on ${deployment}`, () => {
    const redis = suiteServer(deployment, provide, (server) => server.close());
    let raw: RedisClient;
    let url: string;
    let prefix: string;

    /** Stores plants as the version before the tag index did: members, no index entries. */
    const storeTheOldWay = async (tenant: string, plants: StoredPlant[]): Promise<void> => {
      await raw.zadd(plantsKey(prefix, tenant), ...plants.flatMap((p) => [0, encodeMember(p)]));
    };

    beforeEach(async () => {
      url = redis().url;
      prefix = `${redis().prefix}${randomUUID()}:`;
      raw = createRedisClient(parseRedisUrl(url));
      raw.on('error', () => {});
      await untilReady(raw, 5000);
    });
    afterEach(() => raw.disconnect());

    it('when plants were stored before the tag index, then opening indexes them, logs it, and the filter finds them; the next open does nothing', async () => {
      const held = { 'a-tenant': plantsOf(9), 'b-tenant': plantsOf(4), 'c-untagged': plantsOf(1) };
      for (const [tenant, plants] of Object.entries(held)) await storeTheOldWay(tenant, plants);
      const logger = recorder();

      const storage = await openRedisStorage({ url, prefix }, { logger });
      try {
        for (const [tenant, plants] of Object.entries(held)) {
          for (const tag of ['aroid', '', '🌱 fern']) {
            expect(await storage.plants.list(tenant, undefined, 100, [tag])).to.deep.equal(
              tagged(plants, tag),
            );
          }
        }
        expect(logger.lines.filter((line) => line.level === 'info')).to.deep.equal([
          {
            level: 'info',
            fields: { tenants: 3, resumeAfter: undefined },
            message: 'indexing the tags of the plants stored before the tag index',
          },
          {
            level: 'info',
            fields: { tenants: 3, plants: 14 },
            message: 'the tag index is built',
          },
        ]);
      } finally {
        await storage.close();
      }

      const later = recorder();
      await (await openRedisStorage({ url, prefix }, { logger: later })).close();
      expect(later.lines).to.deep.equal([]);
    });

    it('when the migration is interrupted, then the next start continues from its progress, writes meanwhile included', async () => {
      const [first, second] = [plantsOf(5), plantsOf(6)];
      await storeTheOldWay('a-tenant', first);
      await storeTheOldWay('b-tenant', second);
      const store = new RedisPlantStore(raw, prefix);
      const stop = new AbortController();

      // Aborted after its second step of 2 plants: 4 of a-tenant's 5 are indexed.
      const interrupted = store.indexTags({
        logger: recorder((steps) => steps === 2 && stop.abort()),
        signal: stop.signal,
        batch: 2,
      });
      const error = await interrupted.then(
        () => expect.fail('the migration went on after the abort'),
        (reason: unknown) => reason,
      );
      expect(error).to.have.property('name', 'AbortError');
      expect(await raw.get(`${prefix}tag-index`)).to.equal(
        `${Buffer.from('a-tenant').toString('base64url')}:${encodeId(first[3]!.id)}`,
      );
      expect(await store.list('b-tenant', undefined, 10, ['aroid'])).to.deep.equal([]);
      // A write before the migration ends indexes itself.
      const late = { id: 2n ** 62n, name: 'late', tag: 'aroid' };
      await store.insert('b-tenant', late);

      const logger = recorder();
      const storage = await openRedisStorage({ url, prefix }, { logger });
      try {
        expect(await storage.plants.list('a-tenant', undefined, 10, ['aroid', ''])).to.deep.equal(
          first.filter((plant) => plant.tag === 'aroid' || plant.tag === ''),
        );
        expect(await storage.plants.list('b-tenant', undefined, 10, ['aroid'])).to.deep.equal([
          ...tagged(second, 'aroid'),
          late,
        ]);
        // Resumed after a-tenant's 4th plant: its 5th and b-tenant's 7, not all 12 again.
        expect(logger.lines.filter((line) => line.level === 'info')).to.deep.equal([
          {
            level: 'info',
            fields: { tenants: 2, resumeAfter: { tenant: 'a-tenant', id: first[3]!.id } },
            message: 'indexing the tags of the plants stored before the tag index',
          },
          { level: 'info', fields: { tenants: 2, plants: 8 }, message: 'the tag index is built' },
        ]);
        expect(await raw.get(`${prefix}tag-index`)).to.equal('done');
      } finally {
        await storage.close();
      }
    });

    it('when several instances start at once on plants stored before the tag index, then each opens and every plant is indexed once', async () => {
      const plants = plantsOf(40);
      await storeTheOldWay('a-tenant', plants);

      const opened = await Promise.all([0, 1, 2].map(() => openRedisStorage({ url, prefix })));
      try {
        expect(await opened[2]!.plants.list('a-tenant', undefined, 100, ['aroid'])).to.deep.equal(
          tagged(plants, 'aroid'),
        );
        const entries = await raw.zcard(tagsKey(prefix, 'a-tenant'));
        expect(entries).to.equal(plants.filter((plant) => plant.tag !== undefined).length);
      } finally {
        await Promise.all(opened.map((storage) => storage.close()));
      }
    });
  });
}
