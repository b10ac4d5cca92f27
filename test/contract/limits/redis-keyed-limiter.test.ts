import { openRedisStorage } from '../../../src/adapters/storage/redis/open-redis-storage.js';
import { REDIS_DEPLOYMENTS } from '../../support/redis-server.js';
import { suiteServer } from '../../support/server-requirement.js';
import { describeKeyedLimiter } from './keyed-limiter-contract.js';

for (const [name, provide] of REDIS_DEPLOYMENTS) {
  describe(name, () => {
    const redis = suiteServer(name, provide, (server) => server.close());
    describeKeyedLimiter(name, () => openRedisStorage(redis()));
  });
}
