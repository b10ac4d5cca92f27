import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { responseInProgress, stopParsing } from './node-internals.js';
import { problem, type HttpProblem } from '../error-catalogue.js';

/** A refusal's status, headers (closing the connection) and Error body. */
function refusal(refused: HttpProblem): [number, Record<string, string>, string] {
  const body = JSON.stringify(refused.body());
  const type = 'application/json; charset=utf-8';
  const length = String(Buffer.byteLength(body));
  const headers = { 'Content-Type': type, 'Content-Length': length, Connection: 'close' };
  return [refused.status, { ...refused.headers, ...headers }, body];
}

/** The raw HTTP/1.1 bytes of a refusal, for a socket no response owns. */
export function rawAnswer(refused: HttpProblem): string {
  const [status, headers, body] = refusal(refused);
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head.join('')}\r\n${body}`;
}

/** Answers a refusal through Node's response object, outside Koa; the connection closes after it. */
export function answer(res: ServerResponse, refused: HttpProblem): void {
  const [status, headers, body] = refusal(refused);
  res.writeHead(status, headers).end(res.req.method === 'HEAD' ? undefined : body);
}

/** What a closing connection reads and drops at most: enough for the client to see its answer. */
const LINGER_BYTES = 256 * 1024;

/**
 * Closes a connection as HTTP servers do, where node:http destroys it and the kernel's reset to
 * what is still unread takes the answer (401, 413) from a client still sending: sends `data` and
 * a FIN, drops what still comes until the client's FIN, and destroys after `lingerMs` at most.
 */
export function lingeringClose(socket: Socket, lingerMs: number, data = ''): void {
  if (socket.destroyed || socket.writableEnded) return;
  if (!socket.writable) return void socket.destroy();
  socket.setTimeout(0);
  const timer = setTimeout(() => socket.destroy(), lingerMs).unref();
  socket.once('close', () => clearTimeout(timer));
  stopParsing(socket);
  let dropped = 0;
  socket.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped >= LINGER_BYTES) socket.pause();
  });
  socket.once('end', () => {
    if (socket.writableFinished) socket.destroy();
    else socket.once('finish', () => socket.destroy());
  });
  socket.resume().end(data);
}

/** By node:http's error code; anything else is unparsable. */
const REFUSALS: Record<string, HttpProblem> = {
  HPE_HEADER_OVERFLOW: problem('headers-too-large'),
  ERR_HTTP_REQUEST_TIMEOUT: problem('request-timeout'),
};

/**
 * A node:http 'clientError' listener: what Node refuses before Koa sees it (unparsable, headers
 * over the limit, headers or body late) gets an Error body unless an answer has begun, then a
 * lingering close.
 */
export const clientErrorHandler =
  (lingerMs = 1000) =>
  (error: Error & { code?: string }, socket: Socket): void => {
    const inFlight = responseInProgress(socket);
    if (error.code === 'ECONNRESET' || socket.destroyed || inFlight?.headersSent === true) {
      return void socket.destroy();
    }
    const refused = REFUSALS[error.code ?? ''] ?? problem('not-http');
    if (inFlight === undefined) return lingeringClose(socket, lingerMs, rawAnswer(refused));
    // A body still arriving: its response answers, so the application's later answer finds it sent.
    answer(inFlight, refused);
    lingeringClose(socket, lingerMs);
  };

/** The 'clientError' listener with the default linger, for servers embedding the application. */
export const answerClientError = clientErrorHandler();
