import cluster from 'node:cluster';

/**
 * Pipelining past the bound (connections.ts) closes its connection; the eighth time within 10 s
 * closes every connection of the address and refuses its new ones for 10 s: a client behind a
 * shared address (NAT) pipelining now and then locks no one out; an attack passes eight at once.
 */
export const OVERRUN_REFUSAL = { overruns: 8, windowMs: 10_000, refusalMs: 10_000 };

/** Overruns per key within the window (10,000 keys at most): true when the key is to be refused. */
export function overrunCounter({ overruns, windowMs } = OVERRUN_REFUSAL, now = Date.now) {
  const seen = new Map<string, number[]>();
  return (key: string): boolean => {
    const at = now();
    const times = [...(seen.get(key) ?? []).filter((time) => at - time < windowMs), at];
    seen.delete(key);
    // A refused address starts counting again once its refusal is over.
    if (times.length >= overruns) return true;
    if (seen.size >= 10_000) seen.delete(seen.keys().next().value!);
    seen.set(key, times);
    return false;
  };
}

/** Where a server reports its pipelining overruns (by client key) and hears the instance's. */
export interface OverrunRefusals {
  overran(key: string): void;
  onOverrun(listener: (key: string) => void): void;
}

/** One process's overruns: it hears its own. */
export function localRefusals(): OverrunRefusals {
  const listeners: ((key: string) => void)[] = [];
  return {
    overran: (key) => listeners.forEach((listener) => listener(key)),
    onOverrun: (listener) => void listeners.push(listener),
  };
}

const OVERRUN = 'plant-store:overrun';
type Message = { type?: unknown; key?: unknown } | null;

/** A worker's under `--workers`: told to the primary (shareRefusals), heard from every worker. */
export const workerRefusals = (): OverrunRefusals => ({
  overran: (key) => process.send?.({ type: OVERRUN, key }),
  onOverrun: (listener) =>
    void process.on('message', (m: Message) => m?.type === OVERRUN && listener(String(m.key))),
});

/** In the primary: passes every overrun a worker reports on to every worker. */
export function shareRefusals(): void {
  cluster.on('message', (_worker, message: Message) => {
    if (message?.type !== OVERRUN) return;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.send(message);
  });
}
