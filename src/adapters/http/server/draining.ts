import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Whether the server that accepted this request has stopped listening: shutdown has begun
 * (server.close()), so readiness answers 503 and every answer closes its connection. Read from
 * the connection (node:net sets `socket.server`), so that no flag has to be passed around.
 */
export function draining(req: IncomingMessage): boolean {
  return (req.socket as Socket & { server?: Server }).server?.listening === false;
}
