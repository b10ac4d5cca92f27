import { createServer, type RequestListener, type Server } from 'node:http';
import { once } from 'node:events';
import type { Socket } from 'node:net';
import {
  CONNECTION_POLICIES,
  inOrder,
  REQUEST_POLICIES,
} from '../../../composition/request-path.js';
import { clientErrorHandler } from './client-error.js';
import { clientKey } from './client-key.js';
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
import { watchOutput, type OutputWatch } from './output-watch.js';
import { answerInTurn, type PipelinedAnswers } from './pipelined-answers.js';
import { problem } from '../error-catalogue.js';
import { countRawHeaders } from '../raw-headers.js';
import { answer, rawAnswer } from './raw-answer.js';

/** Every bound the HTTP server holds its clients to; docs/operations.md states each default. */
export interface HttpLimits {
  /** The whole header block must arrive within this. */
  headersTimeoutMs: number;
  /** The whole request, headers and body, must arrive within this. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** A connection on which nothing moves, either way, is destroyed after this. */
  idleTimeoutMs: number;
  /** Output may wait this long for a client that does not read it. */
  sendTimeoutMs: number;
  /** Output waiting for clients on all connections together. */
  maxBufferedOutputBytes: number;
  /** Connections open at once; at the bound, an idle one gives its slot to a new one (see connection-slots.ts). */
  maxConnections: number;
  /** Connections one client address (IPv4, IPv6 /64) may hold; more are closed as soon as they are accepted. */
  maxConnectionsPerAddress: number;
  /** Connections one IPv6 /56 (a site's usual allocation) may hold, over all its /64s. */
  maxConnectionsPerNetwork: number;
  /** Connections the kernel queues before the server accepts them (capped by somaxconn). */
  backlog: number;
  /** A connection the server has answered and closed waits at most this for the client's close. */
  lingerMs: number;
}

export const DEFAULT_HTTP_LIMITS: Readonly<HttpLimits> = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  idleTimeoutMs: 30_000,
  sendTimeoutMs: 30_000,
  maxBufferedOutputBytes: 64 * 1024 * 1024,
  maxConnections: 4096,
  // A browser opens 6 to a host and a NAT or a small proxy pool a few dozen; 32 addresses are
  // needed to fill the global bound, and the eviction at that bound frees what they leave idle.
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

const CONNECT_REFUSED = rawAnswer(problem('connect-refused'));
const MISSING_HOST = problem('missing-host');
const TWO_HOSTS = problem('missing-host', 'a request must carry exactly one Host header');
const EXPECTATION_FAILED = problem('expectation-failed');

/**
 * Pipelined requests (pipelined-answers.ts): the application answers one of a connection at a
 * time, so that a connection holds at most one answer in memory, and up to 32 wait their turn
 * (the connection unread meanwhile); a connection with more waiting is destroyed.
 */
export const PIPELINING = { maxAnswers: 1, maxWaiting: 32 };

/**
 * The node:http server for the application, with every limit of `limits` (defaults for those
 * absent) and the contract's Error body for what Node would otherwise answer itself: requests it
 * cannot parse or that time out (408, a stalled body included), `Expect` other than 100-continue
 * alone (417), HTTP/1.1 without `Host` or any request with two (400) and CONNECT (405).
 */
export function createHttpServer(
  listener: RequestListener,
  limits: Partial<HttpLimits> = {},
  { trustedProxy, refusals = localRefusals() }: HttpServerOptions = {},
): HttpServer {
  const bounds = { ...DEFAULT_HTTP_LIMITS, ...limits };
  // Node checks the header and request timeouts on this period; finer when they are short.
  const checkEvery = Math.max(
    10,
    Math.min(1000, Math.floor(Math.min(bounds.headersTimeoutMs, bounds.requestTimeoutMs) / 4)),
  );
  let inTurn!: PipelinedAnswers;
  // The request policies, outermost first (request-path.ts), around the application's listener.
  const handle = inOrder(REQUEST_POLICIES, {
    'pipelined-answers': (next: RequestListener) => {
      inTurn = answerInTurn(next, PIPELINING, (socket) => {
        const address = socket.remoteAddress ?? '';
        if (trustedProxy?.(address) !== true) refusals.overran(clientKey(address));
      });
      return inTurn.listener;
    },
    'host-check':
      (next: RequestListener): RequestListener =>
      (req, res) => {
        // Shutting down (the server closed): answered, then the connection closes.
        if (!server.listening) closeAfterAnswer(res);
        if (req.headers.host === undefined && req.httpVersion === '1.1') {
          answer(res, MISSING_HOST);
        } else if (countRawHeaders(req.rawHeaders, 'host') > 1) {
          // Node keeps the first of two; a proxy in front may have routed by the other.
          answer(res, TWO_HOSTS);
        } else {
          next(req, res);
        }
      },
  }).reduceRight((next, policy) => policy(next), listener);
  const server = createServer(
    {
      headersTimeout: bounds.headersTimeoutMs,
      requestTimeout: bounds.requestTimeoutMs,
      connectionsCheckingInterval: checkEvery,
      // Checked by host-check, so that the answer is an Error body rather than Node's empty 400.
      requireHostHeader: false,
    },
    handle,
  );
  server.keepAliveTimeout = bounds.keepAliveTimeoutMs;
  server.timeout = bounds.idleTimeoutMs;
  // Each is installed before any connection arrives; they read each other only once one does.
  let slots!: ConnectionSlots;
  let output!: OutputWatch;
  const connectionPolicies = inOrder(CONNECTION_POLICIES, {
    'connection-slots': () => {
      slots = boundConnections(server, {
        maxConnections: bounds.maxConnections,
        maxConnectionsPerAddress: bounds.maxConnectionsPerAddress,
        maxConnectionsPerNetwork: bounds.maxConnectionsPerNetwork,
        exempt: trustedProxy,
        stalled: (socket) => output.stalled(socket),
      });
      refusals.onRefusal((key, ms) => slots.refuseAddress(key, ms));
    },
    // node:http's own destroys idle connections at once, resetting a request that has arrived and
    // not been read yet; and it destroys a connection as soon as its last answer is written.
    'lingering-close': () => {
      onCloseIdle(server, () => closeBetweenRequests(slots, bounds.lingerMs));
      server.on('connection', (socket: Socket) => {
        onCloseAfterAnswer(socket, () => lingeringClose(socket, bounds.lingerMs));
      });
    },
    'output-watch': () => {
      output = watchOutput(
        server,
        {
          sendTimeoutMs: bounds.sendTimeoutMs,
          maxBufferedOutputBytes: bounds.maxBufferedOutputBytes,
          intervalMs: Math.max(10, Math.min(1000, Math.floor(bounds.sendTimeoutMs / 4))),
        },
        inTurn.waitingOutput,
      );
    },
  });
  for (const install of connectionPolicies) install();
  const onClientError = clientErrorHandler(bounds.lingerMs);
  server.on('clientError', onClientError);
  server.on('checkExpectation', (_req, res) => answer(res, EXPECTATION_FAILED));
  // Node sends 100 Continue for any Expect that contains 100-continue among other words
  // (`100-continue, foo`); only the expectation alone is met (any case: RFC 9110, 10.1.1).
  server.on('checkContinue', (req, res) => {
    if (req.headers.expect?.trim().toLowerCase() === '100-continue') {
      res.writeContinue();
      handle(req, res);
    } else {
      answer(res, EXPECTATION_FAILED);
    }
  });
  // The idle timeout (nothing moved for idleTimeoutMs) can come before the request timeout is
  // checked: a body that stalls then gets the 408 the request timeout gives, not a bare close.
  server.on('timeout', (socket: Socket) => {
    const response = responseInProgress(socket);
    if (response !== undefined && !response.headersSent && !response.req.complete) {
      onClientError(Object.assign(new Error('idle'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), socket);
    } else {
      socket.destroy();
    }
  });
  server.on('connect', (_req, socket: Socket) =>
    endAndDestroy(socket, CONNECT_REFUSED, bounds.lingerMs),
  );
  return Object.assign(server, { backlog: bounds.backlog });
}

/**
 * How long a connection idle at shutdown stays open for a request already on its way: one that
 * arrives is answered (with `Connection: close`) rather than dropped by the close.
 */
export const LAST_CALL_MS = 250;

/**
 * Closes every connection between requests, for shutdown, so that nothing accepted is reset: an
 * answer not started yet says `Connection: close` and its connection closes after it; one already
 * under way, and each idle connection, gets LAST_CALL_MS for a request already sent to arrive;
 * a connection still idle then closes with a lingering close (FIN, the client's bytes read and
 * dropped), which a client sees as a clean close before its next request was taken.
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
