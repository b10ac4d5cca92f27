import { createRequire } from 'node:module';
import type sortedBtree from 'sorted-btree';
import { PlantError } from '../../../domain/errors.js';
import type { PlantId } from '../../../domain/plant-id.js';
import { DEFAULT_MAX_PLANTS_PER_TENANT, plantQuotaReached } from '../../../domain/plant-quota.js';
import { firstById, samePlant, type StoredPlant } from '../../../domain/plant.js';
import { compareTenants } from '../../../domain/tenant.js';
import type { PlantEvent } from '../../../domain/webhook.js';
import type { ImportOutcome, PlantStore } from '../../../ports/plant-store.js';
import { HeapGuard, type HeapStatistics } from './heap-guard.js';
import type { MemoryWebhookOutbox } from './memory-webhook-outbox.js';

// sorted-btree is CommonJS with its class on `exports.default`, which Node and tsx unwrap differently.
const BTree = (createRequire(import.meta.url)('sorted-btree') as typeof sortedBtree).default;
type Tree = InstanceType<typeof BTree<PlantId, StoredPlant>>;

const compareIds = (a: PlantId, b: PlantId): number => (a < b ? -1 : a > b ? 1 : 0);
const newTree = (): Tree => new BTree<PlantId, StoredPlant>(undefined, compareIds);

/** A tenant's plants by id, and by tag then id (the tag index); kept only while it holds a plant. */
class Tenant {
  readonly plants = newTree();
  readonly tags = new Map<string, Tree>();

  /** Stores a private copy of the plant (the caller's object may change), replacing its id's. */
  set(plant: StoredPlant): void {
    this.delete(plant.id);
    const copy = { ...plant };
    this.plants.set(plant.id, copy);
    if (copy.tag === undefined) return;
    const index = this.tags.get(copy.tag) ?? newTree();
    index.set(copy.id, copy);
    this.tags.set(copy.tag, index);
  }

  delete(id: PlantId): boolean {
    const held = this.plants.get(id);
    if (held === undefined) return false;
    this.plants.delete(id);
    if (held.tag === undefined) return true;
    const index = this.tags.get(held.tag)!;
    index.delete(id);
    if (index.size === 0) this.tags.delete(held.tag);
    return true;
  }
}

/** At most `limit` plants of a tree with an id above `after`, by ascending id. */
function page(tree: Tree | undefined, after: PlantId | undefined, limit: number): StoredPlant[] {
  const found: StoredPlant[] = [];
  if (tree === undefined) return found;
  for (const [, plant] of tree.entries(after === undefined ? undefined : after + 1n)) {
    if (found.push(plant) === limit) break;
  }
  return found;
}

export interface MemoryPlantStoreOptions {
  /** 0: no quota; default DEFAULT_MAX_PLANTS_PER_TENANT */
  maxPlantsPerTenant?: number;
  /** Creates are refused past this percent of the heap's limit (85) */
  heapLimitPercent?: number;
  /** Tests inject one; default: the old generation's */
  heapStatistics?: HeapStatistics;
}

const HEAP_FULL =
  'the memory store is near its memory limit and takes no new plants; delete plants or restart with more memory';
const heapFull = (): PlantError => new PlantError('storage-refuses-writes', HEAP_FULL);

/** Plants in process memory: B+ trees by bigint id per tenant and tag, a page O(log n + limit). */
export class MemoryPlantStore implements PlantStore {
  private readonly tenantsHolding = new Map<string, Tenant>();
  private readonly maxPlants: number;
  private readonly heap: HeapGuard;

  constructor(
    options: MemoryPlantStoreOptions = {},
    private readonly events?: Pick<MemoryWebhookOutbox, 'record'>,
  ) {
    this.maxPlants = options.maxPlantsPerTenant ?? DEFAULT_MAX_PLANTS_PER_TENANT;
    this.heap = new HeapGuard(options.heapLimitPercent, options.heapStatistics);
  }

  // A duplicate resolves false before any limit is looked at; the tree's size is O(1).
  async insert(tenant: string, plant: StoredPlant, event?: PlantEvent): Promise<boolean> {
    const held = this.tenantsHolding.get(tenant) ?? new Tenant();
    if (held.plants.has(plant.id)) return false;
    if (this.maxPlants > 0 && held.plants.size >= this.maxPlants) {
      throw plantQuotaReached(this.maxPlants);
    }
    if (!this.heap.hasRoom()) throw heapFull();
    held.set(plant);
    this.tenantsHolding.set(tenant, held);
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

  async get(tenant: string, id: PlantId): Promise<StoredPlant | undefined> {
    return this.tenantsHolding.get(tenant)?.plants.get(id);
  }

  async list(
    tenant: string,
    after: PlantId | undefined,
    limit: number,
    tags?: readonly string[],
  ): Promise<StoredPlant[]> {
    const held = this.tenantsHolding.get(tenant);
    if (held === undefined || limit <= 0) return [];
    if (tags === undefined) return page(held.plants, after, limit);
    const pages = tags.map((tag) => page(held.tags.get(tag), after, limit));
    return firstById(pages, limit);
  }

  async delete(tenant: string, id: PlantId): Promise<boolean> {
    const held = this.tenantsHolding.get(tenant);
    if (held === undefined || !held.delete(id)) return false;
    // An emptied tenant would otherwise stay, one per tenant ever seen.
    if (held.plants.size === 0) this.tenantsHolding.delete(tenant);
    return true;
  }

  // The tenants are a Map: sorting those above `after` is the whole cost.
  async tenants(after: string | undefined, limit: number): Promise<string[]> {
    if (limit <= 0) return [];
    const above = [...this.tenantsHolding.keys()].filter(
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
    const tenantPlants = this.tenantsHolding.get(tenant) ?? new Tenant();
    const outcomes = plants.map((plant): ImportOutcome => {
      const held = tenantPlants.plants.get(plant.id);
      if (held !== undefined) {
        if (samePlant(held, plant)) return 'present';
        if (!overwrite) return 'conflict';
        tenantPlants.set(plant);
        return 'replaced';
      }
      if (this.maxPlants > 0 && tenantPlants.plants.size >= this.maxPlants) return 'quota';
      tenantPlants.set(plant);
      return 'stored';
    });
    if (tenantPlants.plants.size > 0) this.tenantsHolding.set(tenant, tenantPlants);
    return outcomes;
  }

  async ping(): Promise<void> {
    if (!this.heap.read()) throw heapFull();
  }
}
