import { RedisTokenStore } from '../../../src/adapters/storage/redis/redis-token-store.js';
import { startRedisCluster, useRedis, type RedisUnderTest } from '../../support/redis-server.js';
import { serverMissing } from '../../support/server-requirement.js';
import { describeTokenStoreContract } from './token-store-contract.js';

function describeOn(name: string, provide: () => Promise<RedisUnderTest | string>): void {
  describe(name, function () {
    let redis: RedisUnderTest | undefined;
    before(async function () {
      const provided = await provide();
      if (typeof provided === 'string') return serverMissing(this, name, provided);
      redis = provided;
    });
    after(async () => redis?.close());
    describeTokenStoreContract(name, { open: () => RedisTokenStore.open(redis!) });
  });
}

describeOn('Redis', useRedis);
describeOn('Redis Cluster', startRedisCluster);
