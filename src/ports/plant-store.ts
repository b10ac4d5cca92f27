import type { PlantId } from '../domain/plant-id.js';
import type { StoredPlant } from '../domain/plant.js';
import type { PlantEvent } from '../domain/webhook.js';
import { portMethods } from './port-methods.js';

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
  /** Resolves the tenant's plant with that id, or undefined. */
  get(tenant: string, id: PlantId): Promise<StoredPlant | undefined>;
  /**
   * Resolves at most `limit` of the tenant's plants with an id above `after` (from the lowest when
   * undefined), by ascending id. With `tags` (distinct, at least one), only the plants whose tag is
   * one of them, read through an index per tag kept in the same write as the plant: a page costs
   * what an unfiltered page costs, whatever else the tenant holds.
   */
  list(
    tenant: string,
    after: PlantId | undefined,
    limit: number,
    tags?: readonly string[],
  ): Promise<StoredPlant[]>;
  /** Removes the plant; resolves false when the tenant has none with that id. */
  delete(tenant: string, id: PlantId): Promise<boolean>;
  /**
   * Resolves at most `limit` tenants holding plants, above `after` (from the first when undefined),
   * in code-point order (compareTenants). A store may serve the page after a full one (`after` its
   * last tenant) from the reading that page came from: a tenant written or emptied meanwhile may or
   * may not be in it.
   */
  tenants(after: string | undefined, limit: number): Promise<string[]>;
  /**
   * Imports a batch of one tenant's plants (distinct ids), within the quota and recording no
   * event; resolves one outcome per plant, in order. `overwrite` replaces conflicts. Each plant is
   * written whole or not at all, the batch not necessarily at once (Redis: one script; MongoDB: a
   * find and bulk writes), so a failure may leave part of it written, which a rerun finds present.
   * Batches in flight together may land in any order: a caller that repeats an id waits for the
   * batch holding it first (plant-import.ts).
   */
  importBatch(
    tenant: string,
    plants: readonly StoredPlant[],
    overwrite: boolean,
  ): Promise<ImportOutcome[]>;
  /** Resolves when the store answers; rejects with a `storage-unavailable` PlantError otherwise. */
  ping(): Promise<void>;
}

/** What an export reads: the tenants holding plants, and their plants, a page at a time. */
export type PlantReader = Pick<PlantStore, 'list' | 'tenants'>;

/**
 * The plants as they were at one instant, read a page at a time whatever is written meanwhile,
 * until `release()` (which must come before the storage closes).
 */
export interface PlantSnapshot extends PlantReader {
  release(): void;
}

/** Every method of PlantStore (checked when it compiles): what store decorators forward. */
export const PLANT_STORE_METHODS = portMethods<PlantStore>()([
  'insert',
  'get',
  'list',
  'delete',
  'tenants',
  'importBatch',
  'ping',
]);
