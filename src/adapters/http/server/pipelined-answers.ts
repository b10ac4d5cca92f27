import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

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
 * Bounds what pipelined requests make a connection hold. node:http emits every request of a read at
 * once and only pauses reading once answers pile up, so a client that pipelines hundreds of
 * requests and never reads would hold hundreds of answers. Here the application answers `maxAnswers`
 * of a connection at a time (the next once one is written out), the connection unread while any
 * wait; past `maxWaiting` waiting, the connection is destroyed (RFC 9112, 9.3.2: the client retries
 * what a closed connection did not answer) and `overran` told.
 */
export function answerInTurn(
  listener: RequestListener,
  { maxAnswers, maxWaiting }: { maxAnswers: number; maxWaiting: number },
  overran: (socket: Socket) => void,
): PipelinedAnswers {
  const turns = new WeakMap<Socket, Turns>();

  const start = (state: Turns, req: IncomingMessage, res: ServerResponse, arriving = false) => {
    const socket = req.socket;
    state.answering.add(res);
    const done = () => {
      if (!state.answering.delete(res)) return;
      const next = state.waiting.shift();
      if (next !== undefined) start(state, ...next);
      else if (state.paused) {
        state.paused = false;
        socket.resume();
      }
    };
    res.once('finish', done);
    res.once('close', done);
    if (!arriving) listener(req, res);
    // Once node:http has parsed the rest of the read: it may have overrun (the connection is
    // destroyed) or be unparsable (the clientError listener has answered).
    else setImmediate(() => socket.destroyed || res.headersSent || listener(req, res));
  };

  const inTurn: RequestListener = (req, res) => {
    const socket = req.socket;
    let state = turns.get(socket);
    if (state === undefined) {
      const fresh: Turns = { answering: new Set(), waiting: [], paused: false };
      turns.set(socket, (state = fresh));
      socket.once('close', () => fresh.waiting.splice(0));
    }
    if (socket.destroyed) return;
    if (state.answering.size < maxAnswers && state.waiting.length === 0) {
      return start(state, req, res, true);
    }
    if (state.waiting.length >= maxWaiting) {
      state.waiting.splice(0);
      overran(socket);
      return void socket.destroy();
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
      // An answer not yet given the socket (behind an unfinished one) holds its own output.
      for (const res of turns.get(socket)?.answering ?? []) {
        if (res.socket === null) bytes += res.writableLength;
      }
      return bytes;
    },
  };
}
