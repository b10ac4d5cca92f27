import { join } from 'node:path';
import { FileTokenStore } from '../../../src/adapters/storage/file/file-token-store.js';
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
      name: 'file',
      on: 'in process',
      open: async ({ directory }) => ({
        tokens: new FileTokenStore(join(directory, 'contract', 'tokens.json')),
        close: async () => {},
      }),
    },
    { name: 'Redis', on: 'Redis', open: (redis) => openRedisStorage(redis) },
    { name: 'Redis Cluster', on: 'Redis Cluster', open: (redis) => openRedisStorage(redis) },
    { name: 'MongoDB', on: 'MongoDB', open: (server) => openMongoStorage(server) },
  ],
  (name, open) => describeTokenStoreContract(name, { open }),
);
