import { RedisPlantStore } from '../../../src/adapters/storage/redis/redis-plant-store.js';
import { startRedisCluster, useRedis, type RedisUnderTest } from '../../support/redis-server.js';
import { serverMissing } from '../../support/server-requirement.js';
import { describePlantStoreContract } from './plant-store-contract.js';

function describeOn(name: string, provide: () => Promise<RedisUnderTest | string>): void {
  describe(name, function () {
    let redis: RedisUnderTest | undefined;
    before(async function () {
      const provided = await provide();
      if (typeof provided === 'string') return serverMissing(this, name, provided);
      redis = provided;
    });
    after(async () => redis?.close());
    describePlantStoreContract(name, { open: () => RedisPlantStore.open(redis!) });
  });
}

describeOn('Redis', useRedis);
describeOn('Redis Cluster', startRedisCluster);
