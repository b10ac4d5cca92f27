import type { PlantId } from '../domain/plant-id.js';
import type { StoredPlant } from '../domain/plant.js';
import type { PlantEvent } from '../domain/webhook.js';

/**
 * What a batched import did with one plant: `stored` (new), `present` (the tenant holds it with the
 * same content), `replaced` (held with other content, overwritten), `conflict` (held with other
 * content, kept), `quota` (refused: the tenant holds its quota).
 */
export type ImportOutcome = 'stored' | 'present' | 'replaced' | 'conflict' | 'quota';

/**
 * Driven port: where plants are kept, per tenant. Implementations translate their outages into a
 * `storage-unavailable` PlantError and must never leave a half-written plant behind. Its connection
 * belongs to the Storage that opened it (ports/storage.ts), which closes it.
 */
export interface PlantStore {
  /**
   * Stores the plant unless the tenant has one with its id; atomic; resolves false (storing nothing)
   * on a duplicate. Stores with webhooks record `event` for the tenant's subscribers in the same write.
   */
  insert(tenant: string, plant: StoredPlant, event?: PlantEvent): Promise<boolean>;
  /** Resolves at most `limit` of the tenant's plants with an id above `after` (from the lowest when undefined), by ascending id. */
  list(tenant: string, after: PlantId | undefined, limit: number): Promise<StoredPlant[]>;
  /** Removes the plant; resolves false when the tenant has none with that id. */
  delete(tenant: string, id: PlantId): Promise<boolean>;
  /** Resolves at most `limit` tenants holding plants, above `after` (from the first when undefined), in code-point order (compareTenants). */
  tenants(after: string | undefined, limit: number): Promise<string[]>;
  /**
   * Imports a batch of one tenant's plants (distinct ids) in one write, within the quota and
   * recording no event; resolves one outcome per plant, in order. `overwrite` replaces conflicts.
   */
  importBatch(
    tenant: string,
    plants: readonly StoredPlant[],
    overwrite: boolean,
  ): Promise<ImportOutcome[]>;
  /** Resolves when the store answers; rejects with a `storage-unavailable` PlantError otherwise. */
  ping(): Promise<void>;
}
