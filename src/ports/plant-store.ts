import type { PlantId } from '../domain/plant-id.js';
import type { StoredPlant } from '../domain/plant.js';
import type { PlantEvent } from '../domain/webhook.js';
import { portMethods } from './port-methods.js';

/** What an import did with a plant: new, held alike, held otherwise (overwritten, kept), quota. */
export type ImportOutcome = 'stored' | 'present' | 'replaced' | 'conflict' | 'quota';

/** Driven port: plants per tenant, never half-written; outages are `storage-unavailable`. */
export interface PlantStore {
  /** Stores the plant unless its id is taken (false); atomic, recording `event` in that write. */
  insert(tenant: string, plant: StoredPlant, event?: PlantEvent): Promise<boolean>;
  /** Resolves the tenant's plant with that id, or undefined. */
  get(tenant: string, id: PlantId): Promise<StoredPlant | undefined>;
  /** Up to `limit` plants above `after` by id; with `tags`, through a per-tag index (same cost). */
  list(
    tenant: string,
    after: PlantId | undefined,
    limit: number,
    tags?: readonly string[],
  ): Promise<StoredPlant[]>;
  /** Removes the plant; resolves false when the tenant has none with that id. */
  delete(tenant: string, id: PlantId): Promise<boolean>;
  /** Up to `limit` tenants holding plants above `after` (compareTenants), perhaps read earlier. */
  tenants(after: string | undefined, limit: number): Promise<string[]>;
  /**
   * Imports one tenant's plants (distinct ids) within the quota, with no event: an outcome each.
   * Each plant lands whole, the batch maybe in parts; batches in flight land in any order.
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

/** The plants of one instant, read a page at a time until `release()` (before storage closes). */
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
