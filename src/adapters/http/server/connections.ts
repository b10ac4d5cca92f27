import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { clientKey, networkKey } from '../client-key.js';
import type { HttpLimits } from './http-server.js';
import { responseInProgress } from './node-internals.js';
import { OVERRUN_REFUSAL, overrunCounter } from './overrun-refusals.js';

/** Per connection: its address's clientKey (and IPv6 /56), since when its output waits unread. */
type Held = { keys: string[]; since: number };

/** Addresses refused at once, at most; the oldest is forgotten first, so no flood of addresses grows it. */
const REFUSALS_KEPT = 10_000;

/**
 * Bounds the connections a server holds and the output their clients leave unread:
 * - per client address (and IPv6 /56) over its bound, or refused, a connection is destroyed at once;
 * - at the global bound, a new connection takes the slot of one whose client does not read its
 *   output, else of one with no request in progress, from the address holding the most; only when
 *   all are busy with clients that read is the new one destroyed;
 * - a sweep every `intervalMs` destroys connections whose output (`waitingOutput`) has waited
 *   longer than the send timeout, then the longest-waiting while all output exceeds the budget.
 */
export function holdConnections(
  server: Server,
  limits: HttpLimits & { intervalMs: number; exempt: (address: string) => boolean },
  waitingOutput: (socket: Socket) => number,
) {
  const held = new Map<Socket, Held>();
  const counts = new Map<string, number>();
  const count = (key: string, by: number) => {
    const n = (counts.get(key) ?? 0) + by;
    if (n === 0) counts.delete(key);
    else counts.set(key, n);
  };
  const free = (socket: Socket) => {
    held.get(socket)?.keys.forEach((key) => count(key, -1));
    held.delete(socket);
  };
  /** Destroys one connection that `pick` accepts, from the address holding the most. */
  const evict = (pick: (socket: Socket, { since }: Held) => boolean): boolean => {
    let victim: Socket | undefined;
    let most = 0;
    for (const [socket, slot] of held) {
      const n = counts.get(slot.keys[0]!)!;
      if (n > most && pick(socket, slot)) [victim, most] = [socket, n];
    }
    // Its 'close' comes on the next tick; its slot is free now.
    victim?.destroy();
    if (victim !== undefined) free(victim);
    return victim !== undefined;
  };
  const stalled = (socket: Socket, { since }: Held) => since !== 0 && waitingOutput(socket) > 0;

  /** Per address key, until when its new connections are refused (ms since the epoch). */
  const refused = new Map<string, number>();
  const overruns = overrunCounter();
  const isRefused = (key: string) => {
    if ((refused.get(key) ?? 0) > Date.now()) return true;
    refused.delete(key);
    return false;
  };

  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const key = clientKey(address);
    const network = networkKey(address);
    const keys = network === undefined ? [key] : [key, network];
    const overBound =
      !limits.exempt(address) &&
      (isRefused(key) ||
        (counts.get(key) ?? 0) >= limits.maxConnectionsPerAddress ||
        (network !== undefined && (counts.get(network) ?? 0) >= limits.maxConnectionsPerNetwork));
    const full = held.size >= limits.maxConnections;
    if (overBound || (full && !evict(stalled) && !evict((s) => !responseInProgress(s)))) {
      return void socket.destroy();
    }
    held.set(socket, { keys, since: 0 });
    keys.forEach((key) => count(key, 1));
    socket.once('close', () => free(socket));
  });

  const sweep = () => {
    const now = Date.now();
    let total = 0;
    const waiting: [Socket, number, number][] = [];
    for (const [socket, slot] of held) {
      const pending = waitingOutput(socket);
      if (pending === 0) slot.since = 0;
      else if (slot.since !== 0 && now - slot.since >= limits.sendTimeoutMs) socket.destroy();
      else {
        slot.since ||= now;
        total += pending;
        waiting.push([socket, slot.since, pending]);
      }
    }
    if (total <= limits.maxBufferedOutputBytes) return;
    waiting.sort((a, b) => a[1] - b[1]);
    for (const [socket, , pending] of waiting) {
      if (total <= limits.maxBufferedOutputBytes) break;
      total -= pending;
      socket.destroy();
    }
  };
  const timer = setInterval(sweep, limits.intervalMs).unref();
  server.once('close', () => clearInterval(timer));

  return {
    sockets: () => held.keys(),
    /** An address's pipelining overrun: past the policy, its connections close and new ones are refused. */
    overran(key: string) {
      if (!overruns(key)) return;
      refused.delete(key);
      if (refused.size >= REFUSALS_KEPT) refused.delete(refused.keys().next().value!);
      refused.set(key, Date.now() + OVERRUN_REFUSAL.refusalMs);
      // At once: an address that overruns again and again usually does on all its connections.
      for (const [socket, { keys }] of held) if (keys[0] === key) socket.destroy();
    },
  };
}
