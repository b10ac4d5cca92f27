import { PlantError } from '../../domain/errors.js';
import { PLANT_STORE_METHODS, type PlantStore } from '../../ports/plant-store.js';
import { TOKEN_STORE_METHODS, type TokenStore } from '../../ports/token-store.js';
import {
  WEBHOOK_SUBSCRIPTIONS_METHODS,
  type WebhookSubscriptions,
} from '../../ports/webhook-subscriptions.js';
import type { OpenedStorage } from '../limits/limiter-store.js';

type Method = (...args: unknown[]) => Promise<unknown>;

/**
 * Each of `methods` (a port's list, src/ports: a method added there is forwarded too) passed to
 * the store `current` finds, or answering "starting" while it finds none.
 */
const forward = <T extends object>(
  methods: readonly (keyof T & string)[],
  current: () => T | undefined,
): T =>
  Object.fromEntries(
    methods.map((method) => [
      method,
      (...args: unknown[]) => {
        const store = current();
        return store === undefined
          ? Promise.reject(new PlantError('storage-unavailable', 'storage is starting'))
          : (store[method] as Method).apply(store, args);
      },
    ]),
  ) as T;

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
    this.plants = forward(PLANT_STORE_METHODS, () => this.current?.plants);
    this.tokens = forward(TOKEN_STORE_METHODS, () => this.current?.tokens);
    const webhooks = forward(WEBHOOK_SUBSCRIPTIONS_METHODS, () => {
      const { current } = this;
      if (current !== undefined && current.webhooks === undefined) {
        throw new PlantError('storage-unavailable', 'this storage keeps no webhook subscriptions');
      }
      return current?.webhooks;
    });
    // The storage closes its subscriptions with itself.
    this.webhooks = { ...webhooks, close: () => Promise.resolve() };
  }

  async close(): Promise<void> {
    this.abort.abort();
    await this.opened.catch(() => {});
    await this.current?.close();
  }
}
