import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { destroyWithoutStacks } from './node-internals.js';

/** Per connection: the answers the application is producing, and the requests waiting their turn. */
interface Turns {
  readonly answering: Set<ServerResponse>;
  readonly waiting: [IncomingMessage, ServerResponse][];
  /** Whether this module paused the connection's reading (and so resumes it). */
  paused: boolean;
}

export interface PipelinedAnswers {
  /** The request listener to give node:http: the application's, called in turn. */
  readonly listener: RequestListener;
  /** Bytes of output the connection holds that its client has not taken: the socket's and every queued answer's. */
  waitingOutput(socket: Socket): number;
}

/**
 * Bounds what pipelined requests can make a connection hold. node:http parses every request of a
 * read and emits each at once; an answer behind one the client has not read waits in memory
 * (the response's own output queue, not the socket's), so a client that pipelines hundreds of
 * requests and never reads would hold hundreds of answers. Here the application answers at most
 * `maxAnswers` requests of a connection at a time: the next one starts once an earlier answer is
 * written out to the kernel ('finish'), and while any wait, the connection is not read, so what a
 * connection holds is its waiting requests and `maxAnswers` answers. Node holds a few kB for each
 * request it parsed (the request and response objects), 30 to 70 times what a short request
 * takes on the wire, so more than `maxWaiting` requests waiting destroys the connection
 * (RFC 9112, 9.3.2: a client retries the requests a closed connection did not answer): what a
 * read of a client that pipelines further than that carried is garbage at once. A client that
 * reads its answers and pipelines less sees no difference but order, which HTTP/1.1 keeps.
 */
export function answerInTurn(
  listener: RequestListener,
  { maxAnswers, maxWaiting }: { maxAnswers: number; maxWaiting: number },
  /** Told of each connection destroyed for pipelining past `maxWaiting`. */
  overran: (socket: Socket) => void = () => {},
): PipelinedAnswers {
  const turns = new WeakMap<Socket, Turns>();

  const start = (
    state: Turns,
    socket: Socket,
    req: IncomingMessage,
    res: ServerResponse,
    arriving = false,
  ) => {
    state.answering.add(res);
    const done = () => {
      if (!state.answering.delete(res)) return;
      const next = state.waiting.shift();
      if (next !== undefined) start(state, socket, ...next);
      else if (state.paused) {
        state.paused = false;
        // node:http keeps the connection paused when it paused it itself (its own flow control).
        socket.resume();
      }
    };
    res.once('finish', done);
    res.once('close', done);
    if (!arriving) listener(req, res);
    // A request that arrives starts once node:http has parsed the rest of its read: when that
    // read pipelined too far and closed the connection, no answer is made for nobody; when the
    // rest was unparsable, the clientError handler has answered already.
    else setImmediate(() => socket.destroyed || res.headersSent || listener(req, res));
  };

  const inTurn: RequestListener = (req, res) => {
    const socket = req.socket;
    let state = turns.get(socket);
    if (state === undefined) {
      state = { answering: new Set(), waiting: [], paused: false };
      turns.set(socket, state);
      socket.once('close', () => state!.waiting.splice(0));
    }
    if (socket.destroyed) return;
    if (state.answering.size < maxAnswers && state.waiting.length === 0) {
      start(state, socket, req, res, true);
      return;
    }
    if (state.waiting.length >= maxWaiting) {
      state.waiting.splice(0);
      overran(socket);
      // On close node:http aborts each request it parsed, with an error and its stack trace each:
      // perf: 13 against 39 ms of CPU per connection of 2,340 parsed requests (bench/README.md,
      // "What the hand-made fast paths save").
      destroyWithoutStacks(socket);
      return;
    }
    state.waiting.push([req, res]);
    if (!state.paused) {
      state.paused = true;
      socket.pause();
    }
  };

  return {
    listener: inTurn,
    waitingOutput(socket) {
      let bytes = socket.writableLength;
      for (const res of turns.get(socket)?.answering ?? []) {
        // An answer not yet given the socket (behind an unfinished one) holds its own output; the
        // one on the socket counts the socket's in its writableLength, counted above.
        if (res.socket === null) bytes += res.writableLength;
      }
      return bytes;
    },
  };
}
