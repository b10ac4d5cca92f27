import type { Logger } from '../../ports/logger.js';
import type { PlantStore } from '../../ports/plant-store.js';
import type { StorageConfig } from '../config.js';
import { MemoryPlantStore } from './memory/memory-plant-store.js';

/** Opens the configured store; adapters of servers are loaded only when chosen. */
export async function createPlantStore(
  config: StorageConfig,
  deps: { logger?: Logger } = {},
): Promise<PlantStore> {
  switch (config.kind) {
    case 'memory':
      return new MemoryPlantStore();
    case 'redis': {
      const { RedisPlantStore } = await import('./redis/redis-plant-store.js');
      return RedisPlantStore.open({ ...config, ...deps });
    }
    case 'mongodb': {
      const { openMongoPlantStore } = await import('./mongodb/open-mongo-plant-store.js');
      return openMongoPlantStore(config.url);
    }
    default: {
      // Unreachable for typed callers; a plain-JS embedder may still pass anything.
      const unknown: { kind?: unknown } = config;
      throw new Error(`storage ${String(unknown.kind)} is not available in this build`);
    }
  }
}
