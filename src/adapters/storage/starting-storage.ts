import { PlantError } from '../../domain/errors.js';
import type { ManagedToken } from '../../domain/managed-token.js';
import type { PlantId } from '../../domain/plant-id.js';
import type { StoredPlant } from '../../domain/plant.js';
import type { PlantEvent, SubscriptionPatch, WebhookSubscription } from '../../domain/webhook.js';
import type { ImportOutcome, PlantStore } from '../../ports/plant-store.js';
import type { OpenedStorage } from '../limits/limiter-store.js';
import type { TokenStore } from '../../ports/token-store.js';
import type { WebhookSubscriptions } from '../../ports/webhook-subscriptions.js';

const starting = (): Promise<never> =>
  Promise.reject(new PlantError('storage-unavailable', 'storage is starting'));

/**
 * The storage while its technology opens: its stores answer storage-unavailable until it is open
 * (so /plants answers 503 50301 and /readyz 503), then pass every call to the opened stores. This
 * lets the port open before a slow store does, so that /healthz (liveness) answers while start-up
 * waits. Closing stops a wait still under way.
 */
export class StartingStorage {
  /** The opened storage; undefined until then (or for good, when opening failed). */
  current: OpenedStorage | undefined;
  /** Resolves with the storage once open; rejects as opening did (then every call stays 503). */
  readonly opened: Promise<OpenedStorage>;
  readonly plants: PlantStore;
  readonly tokens: TokenStore;
  /** Webhook subscriptions, for their administration (delivery starts on the opened storage). */
  readonly webhooks: WebhookSubscriptions;
  private readonly abort = new AbortController();

  constructor(open: (signal: AbortSignal) => Promise<OpenedStorage>) {
    this.opened = open(this.abort.signal).then((storage) => (this.current = storage));
    // Whoever awaits `opened` handles its failure; the stores keep answering 503.
    this.opened.catch(() => {});
    this.plants = new StartingPlantStore(this);
    this.tokens = new StartingTokenStore(this);
    this.webhooks = new StartingSubscriptions(this);
  }

  async close(): Promise<void> {
    this.abort.abort();
    await this.opened.catch(() => {});
    await this.current?.close();
  }
}

class StartingPlantStore implements PlantStore {
  constructor(private readonly storage: StartingStorage) {}
  insert(tenant: string, plant: StoredPlant, event?: PlantEvent): Promise<boolean> {
    return this.storage.current?.plants.insert(tenant, plant, event) ?? starting();
  }
  list(tenant: string, after: PlantId | undefined, limit: number): Promise<StoredPlant[]> {
    return this.storage.current?.plants.list(tenant, after, limit) ?? starting();
  }
  delete(tenant: string, id: PlantId): Promise<boolean> {
    return this.storage.current?.plants.delete(tenant, id) ?? starting();
  }
  tenants(after: string | undefined, limit: number): Promise<string[]> {
    return this.storage.current?.plants.tenants(after, limit) ?? starting();
  }
  importBatch(
    tenant: string,
    plants: readonly StoredPlant[],
    overwrite: boolean,
  ): Promise<ImportOutcome[]> {
    return this.storage.current?.plants.importBatch(tenant, plants, overwrite) ?? starting();
  }
  ping(): Promise<void> {
    return this.storage.current?.plants.ping() ?? starting();
  }
}

class StartingTokenStore implements TokenStore {
  constructor(private readonly storage: StartingStorage) {}
  create(token: ManagedToken): Promise<boolean> {
    return this.storage.current?.tokens.create(token) ?? starting();
  }
  find(id: string): Promise<ManagedToken | undefined> {
    return this.storage.current?.tokens.find(id) ?? starting();
  }
  list(tenant?: string): ReturnType<TokenStore['list']> {
    return this.storage.current?.tokens.list(tenant) ?? starting();
  }
  revoke(id: string, at: Date): Promise<boolean> {
    return this.storage.current?.tokens.revoke(id, at) ?? starting();
  }
  markUsed(id: string, at: Date): Promise<void> {
    return this.storage.current?.tokens.markUsed(id, at) ?? starting();
  }
  ping(): Promise<void> {
    return this.storage.current?.tokens.ping() ?? starting();
  }
}

class StartingSubscriptions implements WebhookSubscriptions {
  constructor(private readonly storage: StartingStorage) {}
  private get current(): WebhookSubscriptions | undefined {
    const { current } = this.storage;
    if (current !== undefined && current.webhooks === undefined) {
      throw new PlantError('storage-unavailable', 'this storage keeps no webhook subscriptions');
    }
    return current?.webhooks;
  }
  add(subscription: WebhookSubscription): Promise<boolean> {
    return this.current?.add(subscription) ?? starting();
  }
  find(id: string): Promise<WebhookSubscription | undefined> {
    return this.current?.find(id) ?? starting();
  }
  list(tenant?: string): Promise<WebhookSubscription[]> {
    return this.current?.list(tenant) ?? starting();
  }
  update(id: string, patch: SubscriptionPatch): Promise<WebhookSubscription | undefined> {
    return this.current?.update(id, patch) ?? starting();
  }
  remove(id: string): Promise<boolean> {
    return this.current?.remove(id) ?? starting();
  }
  /** The storage closes its subscriptions with itself. */
  async close(): Promise<void> {}
}
