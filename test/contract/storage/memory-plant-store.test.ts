import { MemoryPlantStore } from '../../../src/adapters/storage/memory/memory-plant-store.js';
import { describePlantStoreContract } from './plant-store-contract.js';

describePlantStoreContract('memory', {
  open: async () => ({ plants: new MemoryPlantStore(), close: async () => {} }),
});
