import { createRequire } from 'node:module';
import type sortedBtree from 'sorted-btree';
import type { PlantId } from '../../../domain/plant-id.js';
import type { StoredPlant } from '../../../domain/plant.js';
import type { PlantStore } from '../../../ports/plant-store.js';

// sorted-btree is CommonJS with its class on `exports.default`, which Node and tsx unwrap differently.
const BTree = (createRequire(import.meta.url)('sorted-btree') as typeof sortedBtree).default;
type Tree = InstanceType<typeof BTree<PlantId, StoredPlant>>;

const compareIds = (a: PlantId, b: PlantId): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Plants in process memory: one B+ tree per tenant, keyed by the exact bigint id, so that a page
 * costs O(log n + limit) whatever the store's size. Nothing survives the process.
 */
export class MemoryPlantStore implements PlantStore {
  private readonly tenants = new Map<string, Tree>();

  async insert(tenant: string, plant: StoredPlant): Promise<boolean> {
    let tree = this.tenants.get(tenant);
    if (tree === undefined) {
      tree = new BTree<PlantId, StoredPlant>(undefined, compareIds);
      this.tenants.set(tenant, tree);
    }
    // A private copy, so that the caller's object can change without changing the store.
    return tree.setIfNotPresent(plant.id, { ...plant });
  }

  async list(tenant: string, after: PlantId | undefined, limit: number): Promise<StoredPlant[]> {
    const tree = this.tenants.get(tenant);
    const page: StoredPlant[] = [];
    if (tree === undefined || limit <= 0) return page;
    for (const [, plant] of tree.entries(after === undefined ? undefined : after + 1n)) {
      page.push(plant);
      if (page.length === limit) break;
    }
    return page;
  }

  async delete(tenant: string, id: PlantId): Promise<boolean> {
    return this.tenants.get(tenant)?.delete(id) ?? false;
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.tenants.clear();
  }
}
