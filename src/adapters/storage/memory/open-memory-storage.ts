import type { Storage } from '../../../ports/storage.js';
import { MemoryPlantStore, type MemoryPlantStoreOptions } from './memory-plant-store.js';
import { MemoryTokenStore } from './memory-token-store.js';
import { MemoryWebhookOutbox } from './memory-webhook-outbox.js';
import { MemoryWebhookSubscriptions } from './memory-webhook-subscriptions.js';

/**
 * Plants, tokens, webhook subscriptions and outbox in process memory, forgotten together when it
 * ends; opening never fails or waits. Another process (a `plant-store` command) cannot reach it.
 */
export async function openMemoryStorage(
  config: { storage?: MemoryPlantStoreOptions } = {},
): Promise<Storage> {
  const webhooks = new MemoryWebhookSubscriptions();
  const outbox = new MemoryWebhookOutbox((tenant, type) => webhooks.targets(tenant, type));
  return {
    plants: new MemoryPlantStore(config.storage, outbox),
    tokens: new MemoryTokenStore(),
    webhooks,
    outbox,
    close: async () => {},
  };
}
