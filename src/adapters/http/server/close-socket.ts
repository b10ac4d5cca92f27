import type { Socket } from 'node:net';
import { stopParsing } from './node-internals.js';

/** How long a closed connection may wait for the client's own close before it is destroyed. */
export const DEFAULT_LINGER_MS = 1000;

/**
 * What a closing connection reads and drops of what its client still sends, before it stops
 * reading: enough for the client to see the answer and stop, little next to the body limit.
 */
export const LINGER_BYTES = 256 * 1024;

/** Connections in a lingering close: asked again (shutdown, node:http), nothing changes. */
const lingering = new WeakSet<Socket>();

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

/**
 * Closes a connection after its last answer the way HTTP servers do (a lingering close): sends a
 * FIN once the answer is written, then reads and drops what the client still sends, up to
 * LINGER_BYTES (then stops reading, so that TCP holds the client back), and destroys the socket
 * when the client closes its side or after `lingerMs`. Destroying it at once, as node:http does,
 * makes the kernel answer the unread body with a reset, which takes the answer out of a client
 * that has not read it yet (a 401 or 413 to an upload still being sent). The parser no longer
 * reads: nothing that arrives now is taken as a request.
 */
export function lingeringClose(socket: Socket, lingerMs = DEFAULT_LINGER_MS): void {
  if (socket.destroyed || lingering.has(socket)) return;
  lingering.add(socket);
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.setTimeout(0);
  destroyAfter(socket, lingerMs);
  stopParsing(socket);
  let dropped = 0;
  socket.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped >= LINGER_BYTES) socket.pause();
  });
  // The client's FIN: everything it sent is read, so closing now resets nothing.
  socket.once('end', () => {
    if (socket.writableFinished) socket.destroy();
    else socket.once('finish', () => socket.destroy());
  });
  socket.resume();
  socket.end();
}
