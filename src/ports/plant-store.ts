import type { PlantId } from '../domain/plant-id.js';
import type { StoredPlant } from '../domain/plant.js';
import type { PlantEvent } from '../domain/webhook.js';
import { portMethods } from './port-methods.js';

/**
 * What a batched import did with one plant: `stored` (new), `present` (held with the same
 * content), `replaced` or `conflict` (held with other content: overwritten, or kept), `quota`.
 */
export type ImportOutcome = 'stored' | 'present' | 'replaced' | 'conflict' | 'quota';

/**
 * Driven port: where plants are kept, per tenant. Outages become a `storage-unavailable`
 * PlantError; no half-written plant is ever left. The Storage that opened it closes it.
 */
export interface PlantStore {
  /** Stores the plant unless its id is taken (false); atomic, recording `event` in that write. */
  insert(tenant: string, plant: StoredPlant, event?: PlantEvent): Promise<boolean>;
  /** Resolves the tenant's plant with that id, or undefined. */
  get(tenant: string, id: PlantId): Promise<StoredPlant | undefined>;
  /**
   * At most `limit` plants with an id above `after`, by ascending id; with `tags` (distinct), only
   * those whose tag is one, read through a per-tag index: a page costs what an unfiltered one does.
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
   * At most `limit` tenants holding plants above `after`, in compareTenants order; the page after
   * a full one may come from that page's reading (a tenant written meanwhile may be missing).
   */
  tenants(after: string | undefined, limit: number): Promise<string[]>;
  /**
   * Imports one tenant's plants (distinct ids) within the quota, with no event: one outcome per
   * plant, in order; `overwrite` replaces conflicts. Each plant lands whole, the batch perhaps in
   * parts (a rerun finds them present), and batches in flight may land in any order.
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
