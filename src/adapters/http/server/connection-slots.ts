import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { clientKey, networkKey } from '../client-key.js';
import { responseInProgress } from './node-internals.js';

export interface ConnectionSlotLimits {
  maxConnections: number;
  maxConnectionsPerAddress: number;
  maxConnectionsPerNetwork: number;
  /** Whether a peer is a trusted proxy, which carries many clients: no per-address bound. */
  exempt?: ((address: string) => boolean) | undefined;
  /** Whether a connection's client leaves its output unread: it gives its slot up first. */
  stalled?: ((socket: Socket) => boolean) | undefined;
}

/** The connections a server holds, as bounded by boundConnections. */
export interface ConnectionSlots {
  sockets(): Iterable<Socket>;
  /** Closes every connection of a client address (its clientKey) and refuses its new ones for `ms`. */
  refuseAddress(key: string, ms: number): void;
}

/** Addresses refused at once, at most; the oldest is forgotten first, so no flood of addresses grows it. */
const REFUSALS_KEPT = 10_000;

type Held = Map<string, Set<Socket>>;
const count = (held: Held, key: string | undefined) =>
  key === undefined ? 0 : (held.get(key)?.size ?? 0);
function hold(held: Held, key: string, socket: Socket): void {
  const set = held.get(key) ?? new Set();
  held.set(key, set.add(socket));
}
/** Whether the socket was held (and is no more). */
function release(held: Held, key: string, socket: Socket): boolean {
  const set = held.get(key);
  if (set?.delete(socket) !== true) return false;
  if (set.size === 0) held.delete(key);
  return true;
}

/**
 * Bounds the connections a server holds, per client address (and IPv6 /56), then over all. A
 * connection over its address's or network's bound is destroyed as soon as it is accepted. At the
 * global bound (node:http's own maxConnections would drop the new one), a new connection takes the
 * slot of one whose client does not read its output, else of one with no request in progress, from
 * the address holding the most of them; only when every connection is busy with a client that reads
 * is the new one destroyed. So an address holds at most its bound, never keeps a slot from another
 * while it is not using it, and a reading keep-alive client keeps its connection while others hoard.
 */
export function boundConnections(server: Server, limits: ConnectionSlotLimits): ConnectionSlots {
  const byAddress: Held = new Map();
  const byNetwork: Held = new Map();
  const keys = new WeakMap<Socket, [string, string | undefined]>();
  let open = 0;
  const free = (socket: Socket) => {
    const [key, network] = keys.get(socket) ?? [''];
    if (!release(byAddress, key, socket)) return;
    if (network !== undefined) release(byNetwork, network, socket);
    open--;
  };
  /** Destroys one connection that `pick` accepts, from the address holding the most of them. */
  const evict = (pick: (socket: Socket) => boolean): boolean => {
    let victim: Socket | undefined;
    let most = 0;
    for (const held of byAddress.values()) {
      if (held.size <= most) continue;
      for (const socket of held) {
        if (!pick(socket)) continue;
        victim = socket;
        most = held.size;
        break;
      }
    }
    if (victim === undefined) return false;
    // Its 'close' comes on the next tick; its slot is free now (free ignores a second call).
    victim.destroy();
    free(victim);
    return true;
  };
  const { stalled } = limits;
  const freeSlot = () =>
    (stalled !== undefined && evict(stalled)) ||
    evict((socket) => responseInProgress(socket) === undefined);

  /** Per address key, until when its new connections are refused (ms since the epoch). */
  const refused = new Map<string, number>();
  const isRefused = (key: string) => {
    if ((refused.get(key) ?? 0) > Date.now()) return true;
    refused.delete(key);
    return false;
  };

  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const key = clientKey(address);
    const network = networkKey(address);
    const overBound =
      limits.exempt?.(address) !== true &&
      (isRefused(key) ||
        count(byAddress, key) >= limits.maxConnectionsPerAddress ||
        count(byNetwork, network) >= limits.maxConnectionsPerNetwork);
    if (overBound || (open >= limits.maxConnections && !freeSlot())) return void socket.destroy();
    keys.set(socket, [key, network]);
    hold(byAddress, key, socket);
    if (network !== undefined) hold(byNetwork, network, socket);
    open++;
    socket.once('close', () => free(socket));
  });
  return {
    *sockets() {
      for (const held of byAddress.values()) yield* held;
    },
    refuseAddress(key, ms) {
      refused.delete(key);
      if (refused.size >= REFUSALS_KEPT) refused.delete(refused.keys().next().value!);
      refused.set(key, Date.now() + ms);
      // At once, before more of their reads are parsed: an address that overruns again and again
      // usually does on all its connections.
      for (const socket of [...(byAddress.get(key) ?? [])]) socket.destroy();
    },
  };
}
