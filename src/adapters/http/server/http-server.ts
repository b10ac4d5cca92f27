import { createServer, type RequestListener, type Server } from 'node:http';
import { once } from 'node:events';
import type { Socket } from 'node:net';
import { answer, clientErrorHandler, rawAnswer } from './client-error.js';
import { clientKey } from '../client-key.js';
import { endAndDestroy, lingeringClose } from './close-socket.js';
import { boundConnections, type ConnectionSlots } from './connection-slots.js';
import {
  closeAfterAnswer,
  keepsAlive,
  onCloseAfterAnswer,
  onCloseIdle,
  responseInProgress,
} from './node-internals.js';
import { localRefusals, type OverrunRefusals } from './overrun-refusals.js';
import { watchOutput } from './output-watch.js';
import { answerInTurn } from './pipelined-answers.js';
import { problem } from '../error-catalogue.js';
import { countRawHeaders } from '../raw-headers.js';

/** Every bound the HTTP server holds its clients to; docs/operations.md states each default. */
export interface HttpLimits {
  headersTimeoutMs: number; // the whole header block must arrive within this
  requestTimeoutMs: number; // the whole request, headers and body, must arrive within this
  keepAliveTimeoutMs: number; // an idle keep-alive connection is closed after this
  idleTimeoutMs: number; // a connection on which nothing moves, either way, is destroyed after this
  sendTimeoutMs: number; // output may wait this long for a client that does not read it
  maxBufferedOutputBytes: number; // output waiting for clients on all connections together
  maxConnections: number; // open at once; at the bound, an idle one gives its slot to a new one
  maxConnectionsPerAddress: number; // per client address (IPv4, IPv6 /64)
  maxConnectionsPerNetwork: number; // per IPv6 /56 (a site's usual allocation), over its /64s
  backlog: number; // connections the kernel queues before they are accepted (capped by somaxconn)
  lingerMs: number; // how long a connection closed after an answer waits for the client's close
}

export const DEFAULT_HTTP_LIMITS: Readonly<HttpLimits> = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  idleTimeoutMs: 30_000,
  sendTimeoutMs: 30_000,
  maxBufferedOutputBytes: 64 * 1024 * 1024,
  maxConnections: 4096,
  // A browser opens 6 to a host, a NAT or a small proxy pool a few dozen; 32 addresses fill the
  // global bound, and the eviction at that bound frees what they leave idle.
  maxConnectionsPerAddress: 128,
  // Four hosts' worth: a site of many hosts behind one /56 still gets far more than one address.
  maxConnectionsPerNetwork: 512,
  backlog: 2048,
  lingerMs: 1000,
};

export interface HttpServerOptions {
  /** Whether a peer is a trusted proxy (PLANT_STORE_TRUST_PROXY): exempt from the per-address bounds and refusals. */
  trustedProxy?: ((address: string) => boolean) | undefined;
  /** Who counts pipelining overruns and refuses addresses: this server alone unless told (workers). */
  refusals?: OverrunRefusals | undefined;
}

/** A node:http server that knows the backlog to listen with. */
export type HttpServer = Server & { readonly backlog: number };

/** Per connection: one answer made at a time, at most 32 requests waiting (pipelined-answers.ts). */
export const PIPELINING = { maxAnswers: 1, maxWaiting: 32 };

const CONNECT_REFUSED = rawAnswer(problem('connect-refused'));
const MISSING_HOST = problem('missing-host');
const TWO_HOSTS = problem('missing-host', 'a request must carry exactly one Host header');
const EXPECTATION_FAILED = problem('expectation-failed');

/** Node checks its header and request timeouts this often: finer when they are short. */
const checkEvery = (ms: number) => Math.max(10, Math.min(1000, Math.floor(ms / 4)));

/**
 * The node:http server for the application, with every limit of `limits` (defaults for those
 * absent) and the contract's Error body for what Node would answer itself. Each step below says
 * what it stops; node:http's own options come first, our code only where they cannot.
 */
export function createHttpServer(
  listener: RequestListener,
  limits: Partial<HttpLimits> = {},
  { trustedProxy, refusals = localRefusals() }: HttpServerOptions = {},
): HttpServer {
  const bounds = { ...DEFAULT_HTTP_LIMITS, ...limits };
  const exempt = (socket: Socket) => trustedProxy?.(socket.remoteAddress ?? '') === true;
  // A request without exactly one Host (HTTP/1.1): 400 40006, where Node answers an empty 400.
  // Shutting down: every answer says `Connection: close`.
  const checked: RequestListener = (req, res) => {
    if (!server.listening) closeAfterAnswer(res);
    if (req.headers.host === undefined && req.httpVersion === '1.1') answer(res, MISSING_HOST);
    // Node keeps the first of two; a proxy in front may have routed by the other.
    else if (countRawHeaders(req.rawHeaders, 'host') > 1) answer(res, TWO_HOSTS);
    else listener(req, res);
  };
  // Pipelined requests that would hold many answers in memory: answered one at a time, the
  // connection destroyed past 32 waiting (test/e2e/http/pipelined-answers.test.ts).
  const inTurn = answerInTurn(checked, PIPELINING, (socket) => {
    if (!exempt(socket)) refusals.overran(clientKey(socket.remoteAddress));
  });
  const server = createServer(
    {
      // Headers, or a whole request, that arrive too slowly: node:http's 408, given our body below.
      headersTimeout: bounds.headersTimeoutMs,
      requestTimeout: bounds.requestTimeoutMs,
      connectionsCheckingInterval: checkEvery(
        Math.min(bounds.headersTimeoutMs, bounds.requestTimeoutMs),
      ),
      requireHostHeader: false,
    },
    inTurn.listener,
  );
  // Idle keep-alive connections, and connections on which nothing moves: node:http's own.
  server.keepAliveTimeout = bounds.keepAliveTimeoutMs;
  server.timeout = bounds.idleTimeoutMs;

  // Connections over an address's bound, and over the global one with none idle to give way
  // (node:http's maxConnections cannot evict): connection-slots.test.ts.
  const slots = boundConnections(server, {
    ...bounds,
    exempt: trustedProxy,
    stalled: (s) => stalled(s),
  });
  refusals.onRefusal((key, ms) => slots.refuseAddress(key, ms));
  // Output a client leaves unread past the send timeout or the output budget, which node:http
  // leaves unbounded: output-and-connections.test.ts.
  const stalled = watchOutput(
    server,
    { ...bounds, intervalMs: checkEvery(bounds.sendTimeoutMs) },
    inTurn.waitingOutput,
  );
  // A reset that takes an early answer (401, 413) from a client still sending: a lingering close
  // after the last answer and at shutdown, where node:http destroys (lingering-close.test.ts,
  // graceful-shutdown.test.ts).
  server.on('connection', (socket: Socket) =>
    onCloseAfterAnswer(socket, () => lingeringClose(socket, bounds.lingerMs)),
  );
  onCloseIdle(server, () => closeBetweenRequests(slots, bounds.lingerMs));
  // Unparsable, oversized or late requests: an Error body where Node sends a bare status.
  const onClientError = clientErrorHandler(bounds.lingerMs);
  server.on('clientError', onClientError);
  // An Expect other than 100-continue alone, which Node would meet for `100-continue, foo`: 417.
  server.on('checkExpectation', (_req, res) => answer(res, EXPECTATION_FAILED));
  server.on('checkContinue', (req, res) => {
    if (req.headers.expect?.trim().toLowerCase() !== '100-continue') {
      return answer(res, EXPECTATION_FAILED);
    }
    res.writeContinue();
    inTurn.listener(req, res);
  });
  // A body that stalls past the idle timeout before the request timeout: 408, not a bare close.
  server.on('timeout', (socket: Socket) => {
    const response = responseInProgress(socket);
    if (response === undefined || response.headersSent || response.req.complete) {
      return void socket.destroy();
    }
    onClientError(Object.assign(new Error('idle'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), socket);
  });
  // CONNECT: 405 with an Error body, where Node closes without a word.
  server.on('connect', (_req, socket: Socket) =>
    endAndDestroy(socket, CONNECT_REFUSED, bounds.lingerMs),
  );
  return Object.assign(server, { backlog: bounds.backlog });
}

/** How long a connection idle at shutdown stays open for a request already on its way. */
export const LAST_CALL_MS = 250;

/**
 * Closes every connection between requests, for shutdown, so that nothing accepted is reset: an
 * answer not started says `Connection: close`; a connection idle, or once its answer is written,
 * gets LAST_CALL_MS for a request already sent, then a lingering close.
 */
function closeBetweenRequests(slots: ConnectionSlots, lingerMs: number): void {
  const closeIfIdle = (socket: Socket) => {
    if (responseInProgress(socket) === undefined && socket.writable)
      lingeringClose(socket, lingerMs);
  };
  const later = (socket: Socket) => setTimeout(closeIfIdle, LAST_CALL_MS, socket).unref();
  for (const socket of slots.sockets()) {
    const response = responseInProgress(socket);
    if (response === undefined) later(socket);
    else if (!response.headersSent) closeAfterAnswer(response);
    else if (keepsAlive(response)) response.once('finish', () => later(socket));
  }
}

/** Listens on `host:port` with the server's backlog; rejects when the address cannot be bound. */
export async function listenHttpServer(
  server: HttpServer,
  port: number,
  host: string,
): Promise<void> {
  server.listen({ port, host, backlog: server.backlog });
  await once(server, 'listening');
}
