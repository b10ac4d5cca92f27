// Every use of node:http's and node:net's undocumented behaviour, in one place, each with a test
// (test/unit/adapters/http/server/node-internals.test.ts, run on Node 20, 22 and 24 by
// `npm run test:node-internals`) that fails if a Node release changes what it relies on.
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The response in progress on a connection, undefined between requests: node:http's private
 * `_httpMessage`, which its own clientError handler reads; no public property says it.
 */
export const responseInProgress = (socket: Socket): ServerResponse | undefined =>
  (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;

/** Makes node:http answer `Connection: close` and close the connection after this answer. */
export function closeAfterAnswer(res: ServerResponse): void {
  (res as ServerResponse & { shouldKeepAlive: boolean }).shouldKeepAlive = false;
}

/** Whether node:http keeps the connection open after this answer. */
export const keepsAlive = (res: ServerResponse): boolean =>
  (res as ServerResponse & { shouldKeepAlive: boolean }).shouldKeepAlive;

/** The server that accepted a connection (node:net sets `socket.server`). */
export const serverOf = (socket: Socket): Server | undefined =>
  (socket as Socket & { server?: Server }).server;

/** Replaces what server.close() does to idle connections (it calls `closeIdleConnections`). */
export function onCloseIdle(server: Server, close: () => void): void {
  server.closeIdleConnections = close;
}

/**
 * Replaces how node:http ends a connection after an answer with `Connection: close`: it calls
 * `socket.destroySoon`, which destroys the socket once the answer is written.
 */
export function onCloseAfterAnswer(socket: Socket, close: () => void): void {
  (socket as Socket & { destroySoon: () => void }).destroySoon = close;
}

/**
 * Stops node:http's parser reading a connection: once a 'data' listener is added it reads through
 * its own 'data' listener rather than the handle, so removing every one leaves nothing parsed.
 */
export function stopParsing(socket: Socket): void {
  socket.removeAllListeners('data');
}

/**
 * Destroys a connection without a stack trace for the errors node:http makes as it closes: on
 * close it aborts every request it parsed and has not answered, one ECONNRESET error each (whose
 * stack is captured at once), all from its 'close' listener. Stacks are off only while the
 * socket's 'close' listeners run, back on after the last (or on the next tick, if one throws).
 */
export function destroyWithoutStacks(socket: Socket): void {
  let limit: number | undefined;
  const restore = () => {
    if (limit === undefined) return;
    Error.stackTraceLimit = limit;
    limit = undefined;
  };
  socket.prependOnceListener('close', () => {
    limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    process.nextTick(restore);
  });
  socket.once('close', restore);
  socket.destroy();
}
