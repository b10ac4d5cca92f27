/** How long one readiness look at a store answers for: /readyz asks each store at most once a second. */
export const READINESS_INTERVAL_MS = 1000;

interface Pingable {
  ping(): Promise<void>;
}

/**
 * The store's ping, shared: callers while one runs get its outcome, and so do callers within
 * `intervalMs` after it settled. An unauthenticated /readyz then costs each store at most one look
 * per interval, however many ask, at the price of an answer up to `intervalMs` old.
 */
export function sharedPing<T extends Pingable>(
  store: T,
  intervalMs = READINESS_INTERVAL_MS,
): Pingable {
  let outcome: Promise<void> | undefined;
  let running = false;
  let freshUntil = 0;
  return {
    ping(): Promise<void> {
      if (outcome !== undefined && (running || Date.now() < freshUntil)) return outcome;
      running = true;
      outcome = Promise.resolve()
        .then(() => store.ping())
        .finally(() => {
          running = false;
          freshUntil = Date.now() + intervalMs;
        });
      // Callers handle the outcome; a shared rejection kept for later ones is no unhandled one.
      outcome.catch(() => {});
      return outcome;
    },
  };
}
