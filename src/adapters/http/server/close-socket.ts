import type { Socket } from 'node:net';
import { stopParsing } from './node-internals.js';

export const DEFAULT_LINGER_MS = 1000;

/** What a closing connection reads and drops before it stops reading: enough for the client to see its answer. */
const LINGER_BYTES = 256 * 1024;

/** Connections in a lingering close: asked again (shutdown, node:http), nothing changes. */
const lingering = new WeakSet<Socket>();

export function destroyAfter(socket: Socket, ms: number): void {
  const timer = setTimeout(() => socket.destroy(), ms).unref();
  socket.once('close', () => clearTimeout(timer));
}

/**
 * Sends `data`, half-closes, and destroys the socket once the client closes too or after
 * `lingerMs`: a client that never closes cannot pin the descriptor (FIN-WAIT-2).
 */
export function endAndDestroy(socket: Socket, data: string, lingerMs: number): void {
  if (!socket.writable) return void socket.destroy();
  socket.setTimeout(0);
  destroyAfter(socket, lingerMs);
  // What the client still sends is read and dropped, so that its FIN is seen.
  socket.resume();
  socket.end(data);
}

/**
 * Closes a connection after its last answer as HTTP servers do (a lingering close): a FIN once the
 * answer is written, then what the client still sends is read and dropped (up to LINGER_BYTES) until
 * it closes or `lingerMs` passes. node:http destroys at once, and the kernel then answers the unread
 * body with a reset that takes the answer from a client still sending (a 401 or 413 to an upload).
 */
export function lingeringClose(socket: Socket, lingerMs: number): void {
  if (socket.destroyed || lingering.has(socket)) return;
  lingering.add(socket);
  if (!socket.writable) return void socket.destroy();
  socket.setTimeout(0);
  destroyAfter(socket, lingerMs);
  // Nothing that arrives now is taken as a request.
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
