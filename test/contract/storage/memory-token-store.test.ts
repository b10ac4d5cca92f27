import { MemoryTokenStore } from '../../../src/adapters/storage/memory/memory-token-store.js';
import { describeTokenStoreContract } from './token-store-contract.js';

describeTokenStoreContract('memory', {
  open: async () => ({ tokens: new MemoryTokenStore(), close: async () => {} }),
});
