import type { PlantStore } from '../../ports/plant-store.js';
import type { StorageConfig } from '../config.js';
import { MemoryPlantStore } from './memory/memory-plant-store.js';

/** Opens the configured store; adapters of servers are loaded only when chosen. */
export async function createPlantStore(config: StorageConfig): Promise<PlantStore> {
  switch (config.kind) {
    case 'memory':
      return new MemoryPlantStore();
    case 'mongodb': {
      const { openMongoPlantStore } = await import('./mongodb/open-mongo-plant-store.js');
      return openMongoPlantStore(config.url);
    }
    default:
      throw new Error(`storage ${config.kind} is not available in this build`);
  }
}
