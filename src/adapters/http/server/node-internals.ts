// Every use of node:http's and node:net's undocumented behaviour, each pinned by a test
// (test/unit/adapters/http/server/node-internals.test.ts, run on Node 20, 22 and 24).
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** The response in progress on a connection (node:http's `_httpMessage`), undefined between requests. */
export const responseInProgress = (socket: Socket): ServerResponse | undefined =>
  (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;

/** Makes node:http answer `Connection: close` and close the connection after this answer. */
export function closeAfterAnswer(res: ServerResponse): void {
  (res as ServerResponse & { shouldKeepAlive: boolean }).shouldKeepAlive = false;
}

/** The server that accepted a connection (node:net sets `socket.server`). */
export const serverOf = (socket: Socket): Server | undefined =>
  (socket as Socket & { server?: Server }).server;

/** Replaces what server.close() does to idle connections (it calls `closeIdleConnections`). */
export function onCloseIdle(server: Server, close: () => void): void {
  server.closeIdleConnections = close;
}

/** Replaces how node:http ends a connection after an answer with `Connection: close` (`socket.destroySoon`). */
export function onCloseAfterAnswer(socket: Socket, close: () => void): void {
  (socket as Socket & { destroySoon: () => void }).destroySoon = close;
}

/** Stops node:http's parser reading a connection: it reads through its own 'data' listener. */
export function stopParsing(socket: Socket): void {
  socket.removeAllListeners('data');
}
