import type { PlantStore } from '../ports/plant-store.js';
import type { Config } from '../config/index.js';
import { openStorage } from './open-storage.js';

/** How long an `export` or `import` waits for a store that is not up. */
const COMMAND_WAIT_MS = 2000;

/**
 * The configured storage's plant store alone, for `plant-store export` and `import`: no HTTP, no
 * container, no webhook delivery (an import records no event).
 */
export async function openPlantStore(
  config: Config,
): Promise<{ plants: PlantStore; close(): Promise<void> }> {
  const storage = await openStorage(config, { startupTimeoutMs: COMMAND_WAIT_MS });
  return { plants: storage.plants, close: () => storage.close() };
}
