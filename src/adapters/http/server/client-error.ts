import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { DEFAULT_LINGER_MS, destroyAfter, endAndDestroy } from './close-socket.js';
import { responseInProgress } from './node-internals.js';
import { problem } from '../error-catalogue.js';
import type { HttpProblem } from '../http-problem.js';

/** A refusal that closes its connection: its Error body and every header. */
function closing(refusal: HttpProblem): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify(refusal.body());
  const headers = {
    ...refusal.headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
  };
  return { body, headers };
}

/** The raw HTTP/1.1 bytes of a refusal that closes the connection, for a socket no response owns. */
export function rawAnswer(refusal: HttpProblem): string {
  const { body, headers } = closing(refusal);
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n${lines.join('')}\r\n${body}`;
}

/** Answers a refusal through Node's response object, outside Koa, and closes the connection. */
export function answer(res: ServerResponse, refusal: HttpProblem): void {
  const { body, headers } = closing(refusal);
  res.writeHead(refusal.status, headers);
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

const refusal = (name: 'headers-too-large' | 'request-timeout' | 'not-http') => {
  const answer = problem(name);
  return { answer, raw: rawAnswer(answer) };
};
const HEADERS_TOO_LARGE = refusal('headers-too-large');
const TIMED_OUT = refusal('request-timeout');
const MALFORMED = refusal('not-http');

/**
 * A node:http 'clientError' listener: what Node refuses before Koa sees it (unparsable, headers
 * over the limit, headers or body late) gets an Error body when no answer has begun, and its
 * connection is destroyed within `lingerMs`.
 */
export function clientErrorHandler(
  lingerMs = DEFAULT_LINGER_MS,
): (error: Error & { code?: string }, socket: Socket) => void {
  return (error, socket) => {
    const inFlight = responseInProgress(socket);
    if (error.code === 'ECONNRESET' || socket.destroyed || inFlight?.headersSent === true) {
      return void socket.destroy();
    }
    const { answer: refused, raw } =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? HEADERS_TOO_LARGE
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? TIMED_OUT
          : MALFORMED;
    if (inFlight === undefined) return endAndDestroy(socket, raw, lingerMs);
    // A body still arriving: its response answers, so the application's own later answer finds it sent.
    answer(inFlight, refused);
    destroyAfter(socket, lingerMs);
  };
}

/** The 'clientError' listener with the default linger, for servers embedding the application. */
export const answerClientError = clientErrorHandler();
