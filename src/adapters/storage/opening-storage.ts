import { PlantError } from '../../domain/errors.js';
import type { Storage } from '../../ports/storage.js';

/** A Storage whose technology may still be opening. */
export interface OpeningStorage extends Storage {
  /** Resolves once the stores are open; rejects as opening did (then every call stays 503). */
  readonly opened: Promise<void>;
}

/**
 * Starts opening the storage and gives its stores at once: until they are open every call rejects
 * with storage-unavailable (so /plants answers 503 50301 and /readyz 503), then calls go to the
 * opened stores. This lets the port open before a slow store does, so that /healthz (liveness)
 * answers while start-up waits. Closing stops a wait still under way.
 */
export function openingStorage(open: (signal: AbortSignal) => Promise<Storage>): OpeningStorage {
  const abort = new AbortController();
  let storage: Storage | undefined;
  const opened = open(abort.signal).then((done) => {
    storage = done;
  });
  // Whoever awaits `opened` handles its failure; the stores keep answering 503.
  opened.catch(() => {});
  return {
    plants: deferred(() => storage?.plants),
    tokens: deferred(() => storage?.tokens),
    webhooks: deferred(() => storage?.webhooks),
    outbox: deferred(() => storage?.outbox),
    opened,
    async close() {
      abort.abort();
      await opened.catch(() => {});
      await storage?.close();
    },
  };
}

type Method = (...args: unknown[]) => unknown;

/** A store whose methods reject as unavailable until `current` gives the real one. */
function deferred<T extends object>(current: () => T | undefined): T {
  const bound = new Map<PropertyKey, Method>();
  return new Proxy({} as T, {
    get(_, key) {
      // Not a thenable: an async function may return the store.
      if (key === 'then' || typeof key === 'symbol') return undefined;
      const store = current();
      if (store === undefined) {
        return () => Promise.reject(new PlantError('storage-unavailable', 'storage is starting'));
      }
      let method = bound.get(key);
      if (method === undefined) {
        method = (Reflect.get(store, key) as Method).bind(store);
        bound.set(key, method);
      }
      return method;
    },
  });
}
