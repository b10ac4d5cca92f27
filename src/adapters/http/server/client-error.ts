import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { responseInProgress, stopParsing } from './node-internals.js';
import { problem } from '../error-catalogue.js';
import type { HttpProblem } from '../http-problem.js';

/** A refusal's Error body and headers, closing its connection. */
function closing(refusal: HttpProblem): [string, Record<string, string>] {
  const body = JSON.stringify(refusal.body());
  const length = String(Buffer.byteLength(body));
  const type = 'application/json; charset=utf-8';
  return [
    body,
    { ...refusal.headers, 'Content-Type': type, 'Content-Length': length, Connection: 'close' },
  ];
}

/** The raw HTTP/1.1 bytes of a refusal, for a socket no response owns. */
export function rawAnswer(refusal: HttpProblem): string {
  const [body, headers] = closing(refusal);
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n${head.join('')}\r\n${body}`;
}

/** Answers a refusal through Node's response object, outside Koa; the connection closes after it. */
export function answer(res: ServerResponse, refusal: HttpProblem): void {
  const [body, headers] = closing(refusal);
  res.writeHead(refusal.status, headers);
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

/** What a closing connection reads and drops at most: enough for the client to see its answer. */
const LINGER_BYTES = 256 * 1024;
const lingering = new WeakSet<Socket>();

/**
 * Closes a connection as HTTP servers do (a lingering close), where node:http destroys at once and
 * the kernel's reset to the unread rest takes the answer (a 401 or 413) from a client still
 * sending: sends `data` and a FIN, reads and drops what still comes until the client closes too,
 * and destroys after `lingerMs` at most, so a client that never closes pins nothing.
 */
export function lingeringClose(socket: Socket, lingerMs: number, data = ''): void {
  if (socket.destroyed || lingering.has(socket)) return;
  lingering.add(socket);
  if (!socket.writable) return void socket.destroy();
  socket.setTimeout(0);
  const timer = setTimeout(() => socket.destroy(), lingerMs).unref();
  socket.once('close', () => clearTimeout(timer));
  stopParsing(socket);
  let dropped = 0;
  socket.on('data', (chunk: Buffer) => {
    if ((dropped += chunk.length) >= LINGER_BYTES) socket.pause();
  });
  socket.once('end', () => {
    if (socket.writableFinished) socket.destroy();
    else socket.once('finish', () => socket.destroy());
  });
  socket.resume();
  socket.end(data);
}

const refusal = (name: 'headers-too-large' | 'request-timeout' | 'not-http') => {
  const refused = problem(name);
  return { refused, raw: rawAnswer(refused) };
};
const REFUSALS = {
  HPE_HEADER_OVERFLOW: refusal('headers-too-large'),
  ERR_HTTP_REQUEST_TIMEOUT: refusal('request-timeout'),
};
const MALFORMED = refusal('not-http');

/**
 * A node:http 'clientError' listener: what Node refuses before Koa sees it (unparsable, headers
 * over the limit, headers or body late) gets an Error body when no answer has begun, then a
 * lingering close.
 */
export const clientErrorHandler =
  (lingerMs = 1000) =>
  (error: Error & { code?: string }, socket: Socket): void => {
    const inFlight = responseInProgress(socket);
    if (error.code === 'ECONNRESET' || socket.destroyed || inFlight?.headersSent === true) {
      return void socket.destroy();
    }
    const { refused, raw } = REFUSALS[error.code as keyof typeof REFUSALS] ?? MALFORMED;
    if (inFlight === undefined) return lingeringClose(socket, lingerMs, raw);
    // A body still arriving: its response answers, so the application's later answer finds it sent.
    answer(inFlight, refused);
    lingeringClose(socket, lingerMs);
  };

/** The 'clientError' listener with the default linger, for servers embedding the application. */
export const answerClientError = clientErrorHandler();
