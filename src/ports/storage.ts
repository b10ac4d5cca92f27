import type { PlantStore } from './plant-store.js';
import type { TokenStore } from './token-store.js';
import type { WebhookOutbox } from './webhook-outbox.js';
import type { WebhookSubscriptions } from './webhook-subscriptions.js';

/** Driven port: one storage technology, opened: its plant store and token store over one connection. */
export interface Storage {
  readonly plants: PlantStore;
  readonly tokens: TokenStore;
  /** Webhook subscriptions, and the deliveries `plants` records with its writes (absent: no webhooks). */
  readonly webhooks?: WebhookSubscriptions;
  readonly outbox?: WebhookOutbox;
  /** Releases the connection; neither store is used afterwards. */
  close(): Promise<void>;
}
