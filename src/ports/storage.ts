import type { PlantSnapshot, PlantStore } from './plant-store.js';
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
  /** Opens a snapshot of the plants (absent: an export reads page by page, not one instant). */
  snapshot?(): Promise<PlantSnapshot>;
  /** Copies the whole storage to the new file `path` while serving; `compact`: slower, smaller. */
  backup?(path: string, compact: boolean): Promise<void>;
  /** Reads the whole storage and says what is wrong in it, one line each (absent: no such walk). */
  check?(): Promise<{ plants: number; tenants: number; problems: string[] }>;
  /** Neither store is used afterwards */
  close(): Promise<void>;
}
