import { PlantError } from '../../domain/errors.js';
import { PLANT_STORE_METHODS } from '../../ports/plant-store.js';
import { TOKEN_STORE_METHODS } from '../../ports/token-store.js';
import {
  WEBHOOK_SUBSCRIPTIONS_METHODS,
  type WebhookSubscriptions,
} from '../../ports/webhook-subscriptions.js';
import type { OpenedStorage } from '../limits/limiter-store.js';

/** Each of a port's `methods` passed to the store `current` finds, or "starting" while none. */
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
          : (store[method] as (...args: unknown[]) => Promise<unknown>).apply(store, args);
      },
    ]),
  ) as T;

/**
 * The storage while its technology opens: its stores answer storage-unavailable (503) until then,
 * so that /healthz answers while start-up waits; closing stops a wait still under way.
 */
export class StartingStorage {
  /** For good when opening failed */
  current: OpenedStorage | undefined;
  /** Rejects as opening did (then every call stays 503) */
  readonly opened: Promise<OpenedStorage>;
  readonly plants = forward(PLANT_STORE_METHODS, () => this.current?.plants);
  readonly tokens = forward(TOKEN_STORE_METHODS, () => this.current?.tokens);
  // The storage closes its subscriptions with itself.
  readonly webhooks: WebhookSubscriptions = {
    ...forward(WEBHOOK_SUBSCRIPTIONS_METHODS, () => {
      const { current } = this;
      if (current !== undefined && current.webhooks === undefined) {
        throw new PlantError('storage-unavailable', 'this storage keeps no webhook subscriptions');
      }
      return current?.webhooks;
    }),
    close: () => Promise.resolve(),
  };
  private readonly abort = new AbortController();

  constructor(open: (signal: AbortSignal) => Promise<OpenedStorage>) {
    this.opened = open(this.abort.signal).then((storage) => (this.current = storage));
    // Whoever awaits `opened` handles its failure; the stores keep answering 503.
    this.opened.catch(() => {});
  }

  async close(): Promise<void> {
    this.abort.abort();
    await this.opened.catch(() => {});
    await this.current?.close();
  }
}
