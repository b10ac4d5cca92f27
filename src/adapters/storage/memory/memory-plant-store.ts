import { createRequire } from 'node:module';
import type sortedBtree from 'sorted-btree';
import { PlantError } from '../../../domain/errors.js';
import type { PlantId } from '../../../domain/plant-id.js';
import { DEFAULT_MAX_PLANTS_PER_TENANT, plantQuotaReached } from '../../../domain/plant-quota.js';
import { samePlant, type StoredPlant } from '../../../domain/plant.js';
import { compareTenants } from '../../../domain/tenant.js';
import type { PlantEvent } from '../../../domain/webhook.js';
import type { ImportOutcome, PlantStore } from '../../../ports/plant-store.js';
import { HeapGuard, type HeapStatistics } from './heap-guard.js';

// sorted-btree is CommonJS with its class on `exports.default`, which Node and tsx unwrap differently.
const BTree = (createRequire(import.meta.url)('sorted-btree') as typeof sortedBtree).default;
type Tree = InstanceType<typeof BTree<PlantId, StoredPlant>>;

const compareIds = (a: PlantId, b: PlantId): number => (a < b ? -1 : a > b ? 1 : 0);
/** A tenant's tree; the store keeps it only once it holds a plant. */
const newTree = (): Tree => new BTree<PlantId, StoredPlant>(undefined, compareIds);

export interface MemoryPlantStoreOptions {
  /** Plants one tenant may hold; 0 for no quota. Default DEFAULT_MAX_PLANTS_PER_TENANT. */
  maxPlantsPerTenant?: number;
  /** Creates are refused once the used V8 heap passes this percent of its limit. Default 85. */
  heapLimitPercent?: number;
  /** Reads the heap (tests inject one); default: the old generation's use and reachable limit. */
  heapStatistics?: HeapStatistics;
}

const heapFull = (): PlantError =>
  new PlantError(
    'storage-refuses-writes',
    'the memory store is near its memory limit and takes no new plants; delete plants or restart with more memory',
  );

/**
 * Plants in process memory: one B+ tree per tenant, keyed by the exact bigint id, so that a page
 * costs O(log n + limit) whatever the store's size. Nothing survives the process.
 */
export class MemoryPlantStore implements PlantStore {
  /** One tree per tenant holding plants. */
  private readonly trees = new Map<string, Tree>();
  private readonly maxPlants: number;
  private readonly heap: HeapGuard;

  /** `events`: where events are recorded (the memory outbox); none by default. */
  constructor(
    options: MemoryPlantStoreOptions = {},
    private readonly events?: { record(tenant: string, event: PlantEvent): Promise<void> },
  ) {
    this.maxPlants = options.maxPlantsPerTenant ?? DEFAULT_MAX_PLANTS_PER_TENANT;
    this.heap = new HeapGuard(options.heapLimitPercent, options.heapStatistics);
  }

  /** A duplicate resolves false before any limit is looked at; the tree's size is O(1). */
  async insert(tenant: string, plant: StoredPlant, event?: PlantEvent): Promise<boolean> {
    const tree = this.trees.get(tenant) ?? newTree();
    if (tree.has(plant.id)) return false;
    if (this.maxPlants > 0 && tree.size >= this.maxPlants) throw plantQuotaReached(this.maxPlants);
    if (!this.heap.hasRoom()) throw heapFull();
    // A private copy, so that the caller's object can change without changing the store.
    tree.set(plant.id, { ...plant });
    this.trees.set(tenant, tree);
    if (event !== undefined && this.events !== undefined) {
      try {
        await this.events.record(tenant, event);
      } catch (error) {
        // Both or neither: a plant whose event could not be recorded is taken back.
        await this.delete(tenant, plant.id);
        throw error;
      }
    }
    return true;
  }

  async list(tenant: string, after: PlantId | undefined, limit: number): Promise<StoredPlant[]> {
    const page: StoredPlant[] = [];
    const tree = this.trees.get(tenant);
    if (tree === undefined || limit <= 0) return page;
    for (const [, plant] of tree.entries(after === undefined ? undefined : after + 1n)) {
      if (page.push(plant) === limit) break;
    }
    return page;
  }

  async delete(tenant: string, id: PlantId): Promise<boolean> {
    const tree = this.trees.get(tenant);
    if (tree === undefined || !tree.delete(id)) return false;
    // An emptied tenant's tree would otherwise stay, one per tenant ever seen.
    if (tree.size === 0) this.trees.delete(tenant);
    return true;
  }

  /** The tenants are a Map: sorting those above `after` is the whole cost, and they are in memory already. */
  async tenants(after: string | undefined, limit: number): Promise<string[]> {
    if (limit <= 0) return [];
    const above = [...this.trees.keys()].filter(
      (tenant) => after === undefined || compareTenants(tenant, after) > 0,
    );
    return above.sort(compareTenants).slice(0, limit);
  }

  /** Synchronous from the first plant to the last, so no other call sees half a batch. */
  async importBatch(
    tenant: string,
    plants: readonly StoredPlant[],
    overwrite: boolean,
  ): Promise<ImportOutcome[]> {
    if (!this.heap.hasRoom()) throw heapFull();
    const tree = this.trees.get(tenant) ?? newTree();
    const outcomes = plants.map((plant): ImportOutcome => {
      const held = tree.get(plant.id);
      if (held !== undefined) {
        if (samePlant(held, plant)) return 'present';
        if (!overwrite) return 'conflict';
        tree.set(plant.id, { ...plant });
        return 'replaced';
      }
      if (this.maxPlants > 0 && tree.size >= this.maxPlants) return 'quota';
      tree.set(plant.id, { ...plant });
      return 'stored';
    });
    if (tree.size > 0) this.trees.set(tenant, tree);
    return outcomes;
  }

  /** Rejects with storage-refuses-writes while the heap is too full for creates. */
  async ping(): Promise<void> {
    if (!this.heap.read()) throw heapFull();
  }
}
