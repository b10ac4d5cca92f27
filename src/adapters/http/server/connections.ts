import cluster from 'node:cluster';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { clientKey, networkKey } from '../client-key.js';
import { responseInProgress } from './node-internals.js';

/** Every bound the HTTP server holds its clients to; docs/operations.md states each default. */
export const DEFAULT_HTTP_LIMITS = Object.freeze({
  headersTimeoutMs: 10_000, // the whole header block must arrive within this
  requestTimeoutMs: 30_000, // the whole request, headers and body, must arrive within this
  keepAliveTimeoutMs: 5_000, // an idle keep-alive connection is closed after this
  idleTimeoutMs: 30_000, // a connection on which nothing moves, either way, is destroyed after this
  sendTimeoutMs: 30_000, // output may wait this long for a client that does not read it
  maxBufferedOutputBytes: 64 * 1024 * 1024, // output waiting for clients on all connections together
  maxConnections: 4096, // open at once; at the bound, an idle one gives its slot to a new one
  // Per client address (IPv4, IPv6 /64): a browser opens 6, a NAT or proxy pool a few dozen.
  maxConnectionsPerAddress: 128,
  maxConnectionsPerNetwork: 512, // per IPv6 /56 (a site's usual allocation): four hosts' worth
  backlog: 2048, // connections the kernel queues before they are accepted (capped by somaxconn)
  lingerMs: 1000, // how long a connection closed after an answer waits for the client's close
});

export type HttpLimits = { -readonly [K in keyof typeof DEFAULT_HTTP_LIMITS]: number };

/**
 * Pipelining past the bound (holdConnections) closes its connection; the eighth time within 10 s
 * closes every connection of the address and refuses its new ones for 10 s: a client behind a
 * shared address (NAT) pipelining now and then locks no one out; an attack passes eight at once.
 */
export const OVERRUN_REFUSAL = { overruns: 8, windowMs: 10_000, refusalMs: 10_000 };

/** Overruns per key within the window (10,000 keys at most): true when the key is to be refused. */
export function overrunCounter({ overruns, windowMs } = OVERRUN_REFUSAL, now = Date.now) {
  const seen = new Map<string, number[]>();
  return (key: string): boolean => {
    const at = now();
    const times = [...(seen.get(key) ?? []).filter((time) => at - time < windowMs), at];
    seen.delete(key);
    // A refused address starts counting again once its refusal is over.
    if (times.length >= overruns) return true;
    if (seen.size >= 10_000) seen.delete(seen.keys().next().value!);
    seen.set(key, times);
    return false;
  };
}

/** Where a server reports its pipelining overruns (by client key) and hears the instance's. */
export interface OverrunRefusals {
  overran(key: string): void;
  onOverrun(listener: (key: string) => void): void;
}

/** One process's overruns: it hears its own. */
export function localRefusals(): OverrunRefusals {
  const listeners: ((key: string) => void)[] = [];
  return {
    overran: (key) => listeners.forEach((listener) => listener(key)),
    onOverrun: (listener) => void listeners.push(listener),
  };
}

const OVERRUN = 'plant-store:overrun';
type Message = { type?: unknown; key?: unknown } | null;

/** A worker's under `--workers`: told to the primary (shareRefusals), heard from every worker. */
export const workerRefusals = (): OverrunRefusals => ({
  overran: (key) => process.send?.({ type: OVERRUN, key }),
  onOverrun: (listener) =>
    void process.on('message', (m: Message) => m?.type === OVERRUN && listener(String(m.key))),
});

/** In the primary: passes every overrun a worker reports on to every worker. */
export function shareRefusals(): void {
  cluster.on('message', (_worker, message: Message) => {
    if (message?.type !== OVERRUN) return;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.send(message);
  });
}

/** What the server keeps per connection. */
interface Held {
  keys: string[]; // its address's clientKey, and its IPv6 /56 if any
  since: number; // since when its output has waited unread (0 while none does)
  answering?: ServerResponse; // the answer being made
  waiting: [IncomingMessage, ServerResponse][]; // pipelined requests waiting their turn
  paused?: true; // whether we paused its reading while they wait
}

/** Pipelined requests a connection may have waiting for their turn. */
const MAX_WAITING = 32;

/**
 * Holds the server's connections to what node:http leaves unbounded, and calls `listener`:
 * - per client address (and IPv6 /56) over its bound, or refused, a connection is destroyed at once;
 * - at the global bound, a new connection takes the slot of one whose client does not read its
 *   output, else of one with no request in progress, from the address holding the most; only when
 *   all are busy with clients that read is the new one destroyed;
 * - node:http emits every request of a read at once, so each connection's are answered one at a
 *   time, the connection unread while others wait; past MAX_WAITING it is destroyed (RFC 9112,
 *   9.3.2: the client retries what was not answered) and `refusals` told its address, whose
 *   connections close and new ones are refused once it overruns as often as OVERRUN_REFUSAL says;
 * - a sweep every `intervalMs` destroys connections whose output has waited unread longer than the
 *   send timeout, then the longest-waiting while all output exceeds the budget.
 */
export function holdConnections(
  server: Server,
  listener: RequestListener,
  limits: HttpLimits & { intervalMs: number; exempt: (address: string) => boolean },
  refusals: OverrunRefusals,
) {
  const held = new Map<Socket, Held>();
  const counts = new Map<string, number>();
  const count = (key: string, by: number) => {
    const n = (counts.get(key) ?? 0) + by;
    if (n === 0) counts.delete(key);
    else counts.set(key, n);
  };
  /** Frees its slot; what it still had waiting is not answered. */
  const free = (socket: Socket) => {
    const slot = held.get(socket);
    slot?.keys.forEach((key) => count(key, -1));
    slot?.waiting.splice(0);
    held.delete(socket);
  };
  /** Output a connection holds that its client has not taken: an answer not yet given the socket holds its own. */
  const waitingOutput = (socket: Socket, { answering }: Held) =>
    socket.writableLength + (answering?.socket === null ? answering.writableLength : 0);
  /** Destroys one connection that `pick` accepts, from the address holding the most. */
  const evict = (pick: (socket: Socket, slot: Held) => boolean): boolean => {
    let victim: Socket | undefined;
    let most = 0;
    for (const [socket, slot] of held) {
      const n = counts.get(slot.keys[0]!)!;
      if (n > most && pick(socket, slot)) [victim, most] = [socket, n];
    }
    // Its 'close' comes on the next tick; its slot is free now.
    if (victim !== undefined) free(victim.destroy());
    return victim !== undefined;
  };
  const stalled = (socket: Socket, slot: Held) =>
    slot.since !== 0 && waitingOutput(socket, slot) > 0;

  /** Per address key, until when its new connections are refused (ms since the epoch). */
  const refused = new Map<string, number>();

  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const key = clientKey(address);
    const network = networkKey(address);
    const keys = network === undefined ? [key] : [key, network];
    const overBound =
      !limits.exempt(address) &&
      ((refused.get(key) ?? 0) > Date.now() ||
        (counts.get(key) ?? 0) >= limits.maxConnectionsPerAddress ||
        (network !== undefined && (counts.get(network) ?? 0) >= limits.maxConnectionsPerNetwork));
    const full = held.size >= limits.maxConnections;
    if (overBound || (full && !evict(stalled) && !evict((s) => !responseInProgress(s)))) {
      return void socket.destroy();
    }
    held.set(socket, { keys, since: 0, waiting: [] });
    keys.forEach((key) => count(key, 1));
    socket.once('close', () => free(socket));
  });

  const start = (slot: Held, req: IncomingMessage, res: ServerResponse, arriving: boolean) => {
    slot.answering = res;
    const done = () => {
      if (slot.answering !== res) return;
      delete slot.answering;
      const next = slot.waiting.shift();
      if (next !== undefined) start(slot, ...next, false);
      else if (slot.paused) {
        delete slot.paused;
        req.socket.resume();
      }
    };
    res.once('finish', done).once('close', done);
    // An arriving one once node:http has parsed the rest of the read: it may have overrun (the
    // connection is destroyed) or be unparsable (the clientError listener has answered).
    if (arriving) setImmediate(() => req.socket.destroyed || res.headersSent || listener(req, res));
    else listener(req, res);
  };
  const inTurn: RequestListener = (req, res) => {
    const { socket } = req;
    const slot = held.get(socket);
    if (slot === undefined || socket.destroyed) return;
    if (slot.answering === undefined && slot.waiting.length === 0) {
      return start(slot, req, res, true);
    }
    if (slot.waiting.push([req, res]) > MAX_WAITING) {
      slot.waiting.splice(0);
      if (!limits.exempt(socket.remoteAddress ?? '')) refusals.overran(slot.keys[0]!);
      return void socket.destroy();
    }
    if (!slot.paused) socket.pause();
    slot.paused = true;
  };

  const sweep = () => {
    const now = Date.now();
    // Refusals over are forgotten, so that no flood of addresses grows them.
    for (const [key, until] of refused) if (until <= now) refused.delete(key);
    let total = 0;
    const waiting: [Socket, number, number][] = [];
    for (const [socket, slot] of held) {
      const pending = waitingOutput(socket, slot);
      if (pending === 0) slot.since = 0;
      else if (slot.since !== 0 && now - slot.since >= limits.sendTimeoutMs) socket.destroy();
      else {
        slot.since ||= now;
        total += pending;
        waiting.push([socket, slot.since, pending]);
      }
    }
    if (total <= limits.maxBufferedOutputBytes) return;
    waiting.sort((a, b) => a[1] - b[1]);
    for (const [socket, , pending] of waiting) {
      if (total <= limits.maxBufferedOutputBytes) break;
      total -= pending;
      socket.destroy();
    }
  };
  const timer = setInterval(sweep, limits.intervalMs).unref();
  server.once('close', () => clearInterval(timer));

  const overruns = overrunCounter();
  refusals.onOverrun((key) => {
    if (!overruns(key)) return;
    refused.set(key, Date.now() + OVERRUN_REFUSAL.refusalMs);
    // At once: an address that overruns again and again usually does on all its connections.
    for (const [socket, { keys }] of held) if (keys[0] === key) socket.destroy();
  });
  return { listener: inTurn, sockets: () => held.keys() };
}
