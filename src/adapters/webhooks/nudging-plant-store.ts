import type { PlantStore } from '../../ports/plant-store.js';

/**
 * The store as the service uses it when this process delivers webhooks: an insert that recorded an
 * event wakes the dispatcher, so deliveries start at once instead of at the next poll.
 */
export function nudgingPlantStore(store: PlantStore, nudge: (tenant: string) => void): PlantStore {
  return {
    insert: async (tenant, plant, event) => {
      const stored = await store.insert(tenant, plant, event);
      if (stored && event !== undefined) nudge(tenant);
      return stored;
    },
    list: (tenant, after, limit) => store.list(tenant, after, limit),
    delete: (tenant, id) => store.delete(tenant, id),
    ping: () => store.ping(),
  };
}
