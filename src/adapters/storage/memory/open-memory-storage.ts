import type { OutageReporters } from '../outage-reporter.js';
import type { Storage } from '../../../ports/storage.js';
import { FileTokenStore } from '../file/file-token-store.js';
import { MemoryPlantStore, type MemoryPlantStoreOptions } from './memory-plant-store.js';
import type { WebhookConfig } from '../../webhooks/webhook-config.js';
import { FileWebhookOutbox } from '../file/file-webhook-outbox.js';
import { FileWebhookSubscriptions } from '../file/file-webhook-subscriptions.js';

/**
 * Plants in process memory; managed tokens in a file, because the `plant-store tokens` command
 * runs in another process than the server and cannot reach its memory. Nothing to connect to, so
 * opening never fails or waits: a missing token file is an empty one (the command creates it),
 * and one that cannot be read is reported as an outage of the token store here, then answered 503
 * on use (and by /readyz) until it can be.
 */
export async function openMemoryStorage(
  config: {
    tokenFile: string;
    storage?: MemoryPlantStoreOptions;
    webhooks: Pick<WebhookConfig, 'file' | 'outboxFile' | 'cacheMs'>;
  },
  deps: { outages?: OutageReporters } = {},
): Promise<Storage> {
  const tokens = new FileTokenStore(config.tokenFile);
  await tokens.ping().catch((error: unknown) => {
    const { cause } = error as Error;
    const reason = cause instanceof Error ? cause.message : String(error);
    deps.outages?.tokens.failed(reason, config.tokenFile);
  });
  const webhooks = new FileWebhookSubscriptions(config.webhooks.file, config.webhooks.cacheMs);
  // Opened at its first use: the `plant-store` command never touches the server's journal.
  const outbox = FileWebhookOutbox.lazy(config.webhooks.outboxFile, (tenant, type) =>
    webhooks.targets(tenant, type),
  );
  return {
    plants: new MemoryPlantStore(config.storage, outbox),
    tokens,
    webhooks,
    outbox,
    close: () => outbox.close(),
  };
}
