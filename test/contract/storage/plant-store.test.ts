import { openLmdbStorage } from '../../../src/adapters/storage/lmdb/open-lmdb-storage.js';
import { join } from 'node:path';
import { MemoryPlantStore } from '../../../src/adapters/storage/memory/memory-plant-store.js';
import { openMongoStorage } from '../../../src/adapters/storage/mongodb/open-mongo-storage.js';
import { openRedisStorage } from '../../../src/adapters/storage/redis/open-redis-storage.js';
import { describeAdapters } from '../../support/adapter-table.js';
import { describeImportOrder } from './plant-import-order.js';
import { describePlantStoreContract, type StoreHarness } from './plant-store-contract.js';

describeAdapters<ReturnType<StoreHarness['open']>>(
  [
    {
      name: 'memory',
      on: 'in process',
      open: async () => ({ plants: new MemoryPlantStore(), close: async () => {} }),
    },
    {
      name: 'lmdb',
      on: 'in process',
      open: ({ directory }) => openLmdbStorage({ dataDir: join(directory, 'lmdb') }),
    },
    { name: 'Redis', on: 'Redis', open: (redis) => openRedisStorage(redis) },
    { name: 'Redis Cluster', on: 'Redis Cluster', open: (redis) => openRedisStorage(redis) },
    { name: 'MongoDB', on: 'MongoDB', open: (server) => openMongoStorage(server) },
  ],
  (name, open) => {
    describePlantStoreContract(name, { open });
    describeImportOrder(name, open);
  },
);
