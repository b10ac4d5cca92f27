import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { clientKey, networkKey } from './client-key.js';
import { responseInProgress } from './node-internals.js';

export interface ConnectionSlotLimits {
  maxConnections: number;
  maxConnectionsPerAddress: number;
  maxConnectionsPerNetwork: number;
  /** Whether a peer is a trusted proxy, which carries many clients: no per-address bound. */
  exempt?: ((address: string) => boolean) | undefined;
  /** Whether a connection's client has left its output unread (not reading): it gives its slot up first. */
  stalled?: ((socket: Socket) => boolean) | undefined;
}

const busy = (socket: Socket): boolean => responseInProgress(socket) !== undefined;

/** The connections a server holds, as bounded by boundConnections. */
export interface ConnectionSlots {
  sockets(): Iterable<Socket>;
  /** Closes every connection of a client address (its clientKey) and refuses its new ones for `ms`. */
  refuseAddress(key: string, ms: number): void;
}

/** Addresses refused at once, at most; the oldest refusal is forgotten first, so no flood of addresses grows it. */
const REFUSALS_KEPT = 10_000;

/** Connections counted per key (an address, an IPv6 network). */
class Holdings {
  private readonly held = new Map<string, Set<Socket>>();
  count(key: string): number {
    return this.held.get(key)?.size ?? 0;
  }
  get(key: string): ReadonlySet<Socket> | undefined {
    return this.held.get(key);
  }
  add(key: string, socket: Socket): void {
    let set = this.held.get(key);
    if (set === undefined) this.held.set(key, (set = new Set()));
    set.add(socket);
  }
  /** Whether the socket was held (and is no more). */
  delete(key: string, socket: Socket): boolean {
    const set = this.held.get(key);
    if (set === undefined || !set.delete(socket)) return false;
    if (set.size === 0) this.held.delete(key);
    return true;
  }
  entries(): Iterable<[string, Set<Socket>]> {
    return this.held;
  }
}

/**
 * Bounds the connections a server holds, per client address (and per IPv6 /56) first and then
 * over all addresses. A connection over its address's or network's bound is destroyed as soon as
 * it is accepted. At the global bound, a new connection takes the slot of one whose client is not
 * reading (output left unread since the last sweep of the output watch), else of one without a
 * request in progress (idle between requests, or whose headers have not arrived in full), each
 * taken from the address holding the most such connections; only when every connection is busy
 * with a client that reads is the new one destroyed. So one address, however many connections it
 * opens or however it keeps them (partial headers, idle keep-alive, pipelined answers it never
 * reads), holds at most its own bound and never keeps a slot from another address while it is
 * not using it, and a keep-alive client idle between requests it reads keeps its connection while
 * others hoard. Work happens per connection, never per request; finding a slot at the global
 * bound looks at each open connection at most twice.
 */
export function boundConnections(server: Server, limits: ConnectionSlotLimits): ConnectionSlots {
  const byAddress = new Holdings();
  const byNetwork = new Holdings();
  let open = 0;

  /** Closes, from the address holding the most connections that `pick` accepts, one of them. */
  const evict = (pick: (socket: Socket) => boolean): boolean => {
    let victim: Socket | undefined;
    let most = 0;
    for (const [, held] of byAddress.entries()) {
      if (held.size <= most) continue;
      for (const socket of held) {
        if (!pick(socket)) continue;
        victim = socket;
        most = held.size;
        break;
      }
    }
    // Its 'close' listener gives the slot back; destroy() emits it on the next tick, so it is
    // released now as well (release ignores a second call).
    victim?.destroy();
    if (victim !== undefined) release(victim);
    return victim !== undefined;
  };
  const stalled = limits.stalled;
  const freeSlot = (): boolean =>
    (stalled !== undefined && evict(stalled)) || evict((socket) => !busy(socket));

  const keys = new WeakMap<Socket, [string, string | undefined]>();
  const release = (socket: Socket): void => {
    const [key, network] = keys.get(socket) ?? [''];
    if (!byAddress.delete(key, socket)) return;
    if (network !== undefined) byNetwork.delete(network, socket);
    open--;
  };

  /** Per address key, until when its new connections are refused (ms since the epoch). */
  const refused = new Map<string, number>();
  const isRefused = (key: string): boolean => {
    const until = refused.get(key);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    refused.delete(key);
    return false;
  };

  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const key = clientKey(address);
    const network = networkKey(address);
    const bounded = limits.exempt?.(address) !== true;
    if (
      bounded &&
      (isRefused(key) ||
        byAddress.count(key) >= limits.maxConnectionsPerAddress ||
        (network !== undefined && byNetwork.count(network) >= limits.maxConnectionsPerNetwork))
    ) {
      socket.destroy();
      return;
    }
    if (open >= limits.maxConnections && !freeSlot()) {
      socket.destroy();
      return;
    }
    keys.set(socket, [key, network]);
    byAddress.add(key, socket);
    if (network !== undefined) byNetwork.add(network, socket);
    open++;
    socket.once('close', () => release(socket));
  });
  return {
    *sockets() {
      for (const [, held] of byAddress.entries()) yield* held;
    },
    refuseAddress(key, ms) {
      refused.delete(key);
      if (refused.size >= REFUSALS_KEPT) refused.delete(refused.keys().next().value!);
      refused.set(key, Date.now() + ms);
      // Before their reads are parsed: an address that pipelines past the bound again and again
      // usually does on all its connections, and each 64 kB read parsed is some 1,600 requests.
      for (const held of [...(byAddress.get(key) ?? [])]) held.destroy();
    },
  };
}
