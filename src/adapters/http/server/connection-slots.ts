import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { clientKey } from './client-key.js';

export interface ConnectionSlotLimits {
  /** Connections open at once, over all addresses. */
  maxConnections: number;
  /** Connections one client address (an IPv4 address, an IPv6 /64) may hold at once. */
  maxConnectionsPerAddress: number;
  /** Whether a peer is a trusted proxy, which carries many clients: no per-address bound. */
  exempt?: ((address: string) => boolean) | undefined;
}

/** node:http's own reference to the response in progress on a connection (null between requests). */
export const responseInProgress = (socket: Socket): ServerResponse | undefined =>
  (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;

const busy = (socket: Socket): boolean => responseInProgress(socket) !== undefined;

/** The connections a server holds, as bounded by boundConnections. */
export interface ConnectionSlots {
  /** Every connection open now. */
  sockets(): Iterable<Socket>;
}

/**
 * Bounds the connections a server holds, per client address first and then over all addresses.
 * A connection over its address's bound is destroyed as soon as it is accepted. At the global
 * bound, a new connection takes the slot of one without a request in progress (idle between
 * requests, or whose headers have not arrived in full), taken from the address holding the most
 * connections; only when every connection has a request in progress is the new one destroyed.
 * So one address, however many connections it opens or however it keeps them (partial headers,
 * idle keep-alive, a cheap request now and then), holds at most its own bound and never keeps a
 * slot from another address while it is not using it. Work happens per connection, never per
 * request; finding a slot at the global bound looks at each open connection at most once.
 */
export function boundConnections(server: Server, limits: ConnectionSlotLimits): ConnectionSlots {
  const byAddress = new Map<string, Set<Socket>>();
  let open = 0;

  const release = (key: string, held: Set<Socket>, socket: Socket): void => {
    if (!held.delete(socket)) return;
    open--;
    if (held.size === 0) byAddress.delete(key);
  };

  /** Closes the connection of the address holding the most that has no request in progress. */
  const freeSlot = (): boolean => {
    let victim: [string, Set<Socket>, Socket] | undefined;
    let most = 0;
    for (const [key, held] of byAddress) {
      if (held.size <= most) continue;
      for (const socket of held) {
        if (busy(socket)) continue;
        victim = [key, held, socket];
        most = held.size;
        break;
      }
    }
    if (victim === undefined) return false;
    const [key, held, socket] = victim;
    release(key, held, socket);
    socket.destroy();
    return true;
  };

  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const key = clientKey(address);
    let held = byAddress.get(key);
    if (
      held !== undefined &&
      held.size >= limits.maxConnectionsPerAddress &&
      limits.exempt?.(address) !== true
    ) {
      socket.destroy();
      return;
    }
    if (open >= limits.maxConnections && !freeSlot()) {
      socket.destroy();
      return;
    }
    // freeSlot may have emptied this address's set and dropped it.
    held = byAddress.get(key);
    if (held === undefined) byAddress.set(key, (held = new Set()));
    held.add(socket);
    open++;
    const mine = held;
    socket.once('close', () => release(key, mine, socket));
  });
  return {
    *sockets() {
      for (const held of byAddress.values()) yield* held;
    },
  };
}
