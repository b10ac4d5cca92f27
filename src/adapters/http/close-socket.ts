import type { Socket } from 'node:net';

/** How long a closed connection may wait for the client's own close before it is destroyed. */
export const DEFAULT_LINGER_MS = 1000;

/** Destroys the socket after `ms` unless it closes first. */
export function destroyAfter(socket: Socket, ms: number): void {
  const timer = setTimeout(() => socket.destroy(), ms);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

/**
 * Sends `data` and half-closes, then destroys the socket once the client closes too or after
 * `lingerMs`, whichever is first: a client that never closes its side cannot pin the descriptor
 * (FIN-WAIT-2), and one that does close gets the whole answer before a reset could drop it.
 */
export function endAndDestroy(socket: Socket, data: string, lingerMs = DEFAULT_LINGER_MS): void {
  if (socket.destroyed) return;
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.setTimeout(0);
  destroyAfter(socket, lingerMs);
  // Whatever the client still sends is read and dropped, so its close (FIN) is seen.
  socket.resume();
  socket.end(data);
}
