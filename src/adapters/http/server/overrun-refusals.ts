import cluster from 'node:cluster';

/**
 * When a client address is refused for pipelining past the bound (pipelined-answers.ts): each
 * overrun closes its own connection; the eighth within 10 s closes every connection of the address
 * and refuses its new ones for 10 s. A client behind a shared address (NAT) pipelining now and then
 * must not lock out the others; an attack passes eight at its start.
 */
export const OVERRUN_REFUSAL = { overruns: 8, windowMs: 10_000, refusalMs: 10_000 };

export type OverrunPolicy = typeof OVERRUN_REFUSAL;

/** Where a server reports its overruns (by client key) and learns which addresses to refuse. */
export interface OverrunRefusals {
  overran(key: string): void;
  onRefusal(refuse: (key: string, ms: number) => void): void;
}

/** Addresses counted at once, at most; the one counted least recently is forgotten first. */
const KEYS_KEPT = 10_000;

/** Overruns per key within the policy's window: true when the key is to be refused. */
export function overrunCounter(
  { overruns, windowMs }: OverrunPolicy,
  now: () => number = Date.now,
): (key: string) => boolean {
  const seen = new Map<string, number[]>();
  return (key) => {
    const at = now();
    const times = (seen.get(key) ?? []).filter((time) => at - time < windowMs);
    times.push(at);
    seen.delete(key);
    // A refused address starts counting again once its refusal is over.
    if (times.length >= overruns) return true;
    if (seen.size >= KEYS_KEPT) seen.delete(seen.keys().next().value!);
    seen.set(key, times);
    return false;
  };
}

/** One process's refusals, counted by the server itself. */
export function localRefusals(policy: OverrunPolicy = OVERRUN_REFUSAL): OverrunRefusals {
  const record = overrunCounter(policy);
  const listeners: ((key: string, ms: number) => void)[] = [];
  return {
    overran: (key) => record(key) && listeners.forEach((refuse) => refuse(key, policy.refusalMs)),
    onRefusal: (refuse) => void listeners.push(refuse),
  };
}

const OVERRUN = 'plant-store:overrun';
const isOverrun = (message: unknown): message is { type: typeof OVERRUN; key: string } =>
  (message as { type?: unknown } | null)?.type === OVERRUN &&
  typeof (message as { key?: unknown }).key === 'string';

/**
 * A worker's refusals under `--workers`: it tells the primary of its overruns (shareRefusals), the
 * primary tells every worker, and each counts every overrun of the instance.
 */
export function workerRefusals(policy: OverrunPolicy = OVERRUN_REFUSAL): OverrunRefusals {
  const counted = localRefusals(policy);
  process.on('message', (message: unknown) => isOverrun(message) && counted.overran(message.key));
  return {
    overran: (key) => process.send?.({ type: OVERRUN, key }),
    onRefusal: counted.onRefusal,
  };
}

/** In the primary: passes every overrun a worker reports on to every worker. */
export function shareRefusals(): void {
  cluster.on('message', (_worker, message: unknown) => {
    if (!isOverrun(message)) return;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.send(message);
  });
}
