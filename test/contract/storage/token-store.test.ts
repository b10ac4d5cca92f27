import { join } from 'node:path';
import { openLmdbStorage } from '../../../src/adapters/storage/lmdb/open-lmdb-storage.js';
import { MemoryTokenStore } from '../../../src/adapters/storage/memory/memory-token-store.js';
import { openMongoStorage } from '../../../src/adapters/storage/mongodb/open-mongo-storage.js';
import { openRedisStorage } from '../../../src/adapters/storage/redis/open-redis-storage.js';
import { describeAdapters } from '../../support/adapter-table.js';
import { describeTokenStoreContract, type TokenStoreHarness } from './token-store-contract.js';

describeAdapters<ReturnType<TokenStoreHarness['open']>>(
  [
    {
      name: 'memory',
      on: 'in process',
      open: async () => ({ tokens: new MemoryTokenStore(), close: async () => {} }),
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
  (name, open) => describeTokenStoreContract(name, { open }),
);
