import type { PlantId } from '../domain/plant-id.js';
import type { StoredPlant } from '../domain/plant.js';

/**
 * Driven port: where plants are kept, per tenant. Implementations translate their outages into a
 * `storage-unavailable` PlantError and must never leave a half-written plant behind.
 */
export interface PlantStore {
  /** Stores the plant unless the tenant has one with its id; atomic; resolves false (storing nothing) on a duplicate. */
  insert(tenant: string, plant: StoredPlant): Promise<boolean>;
  /** Resolves at most `limit` of the tenant's plants with an id above `after` (from the lowest when undefined), by ascending id. */
  list(tenant: string, after: PlantId | undefined, limit: number): Promise<StoredPlant[]>;
  /** Removes the plant; resolves false when the tenant has none with that id. */
  delete(tenant: string, id: PlantId): Promise<boolean>;
  /** Resolves when the store answers; rejects with a `storage-unavailable` PlantError otherwise. */
  ping(): Promise<void>;
  /** Releases connections; the store is not used afterwards. */
  close(): Promise<void>;
}
