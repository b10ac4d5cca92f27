import { openRedisStorage } from '../../../src/adapters/storage/redis/open-redis-storage.js';
import { REDIS_DEPLOYMENTS } from '../../support/redis-server.js';
import { suiteServer } from '../../support/server-requirement.js';
import { describePlantStoreContract } from './plant-store-contract.js';

for (const [name, provide] of REDIS_DEPLOYMENTS) {
  describe(name, () => {
    const redis = suiteServer(name, provide, (server) => server.close());
    describePlantStoreContract(name, { open: () => openRedisStorage(redis()) });
  });
}
