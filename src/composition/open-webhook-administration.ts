import type { Config } from '../config/index.js';
import { openStorage } from './open-storage.js';
import { defaultWebhookConfig } from '../adapters/webhooks/webhook-config.js';
import { checkReceiverUrl } from '../adapters/webhooks/address-policy.js';
import { WebhookAdministrator } from '../application/webhook-administrator.js';
import type { WebhookAdministration } from '../ports/webhook-administration.js';

/**
 * Composes webhook administration alone, for the `plant-store webhooks` command: the configured
 * storage and the admin on its subscriptions; no HTTP, no delivery.
 */
export async function openWebhookAdministration(
  config: Config,
): Promise<{ webhooks: WebhookAdministration; close(): Promise<void> }> {
  const storage = await openStorage(config);
  if (storage.webhooks === undefined) {
    await storage.close();
    throw new Error(`webhooks are not available with the ${config.storage.kind} storage`);
  }
  const { allowPrivate } = config.webhooks ?? defaultWebhookConfig();
  return {
    webhooks: new WebhookAdministrator(storage.webhooks, (url) =>
      checkReceiverUrl(url, allowPrivate),
    ),
    close: () => storage.close(),
  };
}
