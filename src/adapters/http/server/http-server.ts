import { createServer, STATUS_CODES } from 'node:http';
import type { RequestListener, Server, ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { Socket } from 'node:net';
import { DEFAULT_HTTP_LIMITS, holdConnections, localRefusals } from './connections.js';
import type { HttpLimits, OverrunRefusals } from './connections.js';
import {
  closeAfterAnswer,
  onCloseAfterAnswer,
  onCloseIdle,
  responseInProgress,
  stopParsing,
} from './node-internals.js';
import { problem, type HttpProblem } from '../error-catalogue.js';
import { countRawHeaders } from '../raw-headers.js';

export { DEFAULT_HTTP_LIMITS, type HttpLimits } from './connections.js';

export interface HttpServerOptions {
  /** Whether a peer is a trusted proxy (PLANT_STORE_TRUST_PROXY): exempt from the per-address bounds and refusals. */
  trustedProxy?: ((address: string) => boolean) | undefined;
  /** Whose pipelining overruns the server counts to refuse addresses: its own unless told (workers). */
  refusals?: OverrunRefusals | undefined;
}

/** A node:http server that knows the backlog to listen with. */
export type HttpServer = Server & { readonly backlog: number };

const CONNECT_REFUSED = rawAnswer(problem('connect-refused'));
const MISSING_HOST = problem('missing-host');
const TWO_HOSTS = problem('missing-host', 'a request must carry exactly one Host header');
const EXPECTATION_FAILED = problem('expectation-failed');
const IDLE_BODY = Object.assign(new Error('idle'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });

/** Node checks its header and request timeouts this often: finer when they are short. */
const checkEvery = (ms: number) => Math.max(10, Math.min(1000, Math.floor(ms / 4)));

/**
 * The node:http server for the application, with the contract's Error body where Node would answer
 * itself. node:http's own options first (its maxHeaderSize, 16 KiB, too); then each step of ours:
 * what it stops, why node:http cannot, and the test (test/e2e/http/ unless named) that shows it.
 */
export function createHttpServer(
  listener: RequestListener,
  limits: Partial<HttpLimits> = {},
  { trustedProxy = () => false, refusals = localRefusals() }: HttpServerOptions = {},
): HttpServer {
  const bounds = { ...DEFAULT_HTTP_LIMITS, ...limits };
  const { lingerMs, headersTimeoutMs, requestTimeoutMs } = bounds;
  const server = createServer({
    headersTimeout: headersTimeoutMs,
    requestTimeout: requestTimeoutMs,
    connectionsCheckingInterval: checkEvery(Math.min(headersTimeoutMs, requestTimeoutMs)),
    requireHostHeader: false,
  });
  server.keepAliveTimeout = bounds.keepAliveTimeoutMs;
  server.timeout = bounds.idleTimeoutMs;

  // Not one Host: node:http's 400 is empty, and it takes the first of two (protocol-answers).
  const checked: RequestListener = (req, res) => {
    if (!server.listening) closeAfterAnswer(res); // shutting down: Connection: close
    if (req.headers.host === undefined && req.httpVersion === '1.1') answer(res, MISSING_HOST);
    else if (countRawHeaders(req.rawHeaders, 'host') > 1) answer(res, TWO_HOSTS);
    else listener(req, res);
  };
  // Per-address bounds, eviction at the global bound, pipelining one at a time, unread output:
  // node:http's maxConnections drops the newcomer, maxRequestsPerSocket counts kept-alive requests
  // too, and it starts every request of a read at once and bounds no output (connection-slots,
  // pipelined-answers, overrun-refusals, output-and-connections).
  const policy = { ...bounds, intervalMs: checkEvery(bounds.sendTimeoutMs), exempt: trustedProxy };
  const connections = holdConnections(server, checked, policy, refusals);
  server.on('request', connections.listener);
  // A lingering close: node:http destroys, and the reset takes a 401 or 413 away (lingering-close).
  server.on('connection', (socket: Socket) =>
    onCloseAfterAnswer(socket, () => lingeringClose(socket, lingerMs)),
  );
  // Shutdown between requests: node:http resets idle ones a request may be on its way to
  // (test/e2e/operations/graceful-shutdown.test.ts).
  onCloseIdle(server, () => closeBetweenRequests(connections.sockets(), lingerMs));
  // Unparsable, oversized or late requests: node:http sends a bare status (closing-connections).
  const onClientError = clientErrorHandler(lingerMs);
  server.on('clientError', onClientError);
  // Expect other than 100-continue alone: node:http's 417 is bare, it takes `100-continue, foo`.
  server.on('checkExpectation', (_req, res) => answer(res, EXPECTATION_FAILED));
  server.on('checkContinue', (req, res) => {
    const expect = req.headers.expect?.trim().toLowerCase();
    if (expect !== '100-continue') return answer(res, EXPECTATION_FAILED);
    res.writeContinue();
    connections.listener(req, res);
  });
  // A body stalled past the idle timeout: node:http closes without a 408 (closing-connections).
  server.on('timeout', (socket: Socket) => {
    const res = responseInProgress(socket);
    if (res && !res.headersSent && !res.req.complete) onClientError(IDLE_BODY, socket);
    else socket.destroy();
  });
  // CONNECT: node:http closes without a word; 405 with an Error body (protocol-answers).
  server.on('connect', (_req, socket: Socket) => lingeringClose(socket, lingerMs, CONNECT_REFUSED));
  return Object.assign(server, { backlog: bounds.backlog });
}

/**
 * Closes every connection between requests, for shutdown, so that nothing accepted is reset: an
 * answer not started says `Connection: close` (node:http then closes); a connection idle, or once
 * its answer is written, gets 250 ms for a request already sent, then a lingering close.
 */
function closeBetweenRequests(sockets: Iterable<Socket>, lingerMs: number): void {
  const closeIfIdle = (socket: Socket) => {
    if (responseInProgress(socket) === undefined) lingeringClose(socket, lingerMs);
  };
  const later = (socket: Socket) => setTimeout(closeIfIdle, 250, socket).unref();
  for (const socket of sockets) {
    const response = responseInProgress(socket);
    if (response === undefined) later(socket);
    else if (!response.headersSent) closeAfterAnswer(response);
    else response.once('finish', () => later(socket));
  }
}

/** Listens with the server's backlog; rejects when the address cannot be bound. */
export async function listenHttpServer(server: HttpServer, port: number, host: string) {
  await once(server.listen({ port, host, backlog: server.backlog }), 'listening');
}

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
