import type { Logger } from '../ports/logger.js';
import type { PlantStore } from '../ports/plant-store.js';
import type { Storage } from '../ports/storage.js';
import type { WebhookOutbox } from '../ports/webhook-outbox.js';
import type { WebhookSubscriptions } from '../ports/webhook-subscriptions.js';
import type { Config } from '../adapters/config/index.js';
import { nudgingPlantStore } from '../adapters/webhooks/nudging-plant-store.js';
import { WebhookAdmin } from '../adapters/webhooks/webhook-admin.js';
import { defaultWebhookConfig } from '../adapters/webhooks/webhook-config.js';
import { WebhookDispatcher } from '../adapters/webhooks/webhook-dispatcher.js';
import { WebhookSender } from '../adapters/webhooks/webhook-sender.js';

/** Webhooks of a running service: administration, and delivery once started. */
export interface WebhookDelivery {
  admin: WebhookAdmin;
  subscriptions: WebhookSubscriptions;
  outbox: WebhookOutbox;
  /** The plant store that wakes delivery when a write recorded an event. */
  plants: PlantStore;
  /** Starts delivering in this process (the server does unless `deliver` is off; embedders choose). */
  start(): void;
  /** Stops delivering and waits for deliveries in flight. */
  stop(): Promise<void>;
}

/** Composes delivery over a storage with webhooks; undefined for one without. */
export function webhookDelivery(
  config: Config,
  storage: Storage,
  logger: Logger,
): WebhookDelivery | undefined {
  const { webhooks: subscriptions, outbox } = storage;
  if (subscriptions === undefined || outbox === undefined) return undefined;
  const settings = config.webhooks ?? defaultWebhookConfig();
  const sender = new WebhookSender({ ...settings, maxSockets: settings.tenantConcurrency });
  const dispatcher = new WebhookDispatcher({
    subscriptions,
    outbox,
    sender,
    config: settings,
    logger,
  });
  return {
    admin: new WebhookAdmin(subscriptions, { allowPrivate: settings.allowPrivate }),
    subscriptions,
    outbox,
    plants: nudgingPlantStore(storage.plants, (tenant) => dispatcher.nudge(tenant)),
    start: () => {
      if (settings.deliver) dispatcher.start();
    },
    stop: () => dispatcher.stop(),
  };
}
