import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Per connection: the answer being made, the requests waiting their turn, whether we paused it. */
type Turn = {
  answering?: ServerResponse;
  waiting: [IncomingMessage, ServerResponse][];
  paused?: true;
};

/**
 * Bounds what pipelined requests make a connection hold: node:http emits every request of a read at
 * once (it pauses reading only once answers pile up), so here the application answers one request
 * of a connection at a time, the connection unread while others wait; past `maxWaiting` waiting,
 * the connection is destroyed (RFC 9112, 9.3.2: the client retries what was not answered) and
 * `overran` told. `waitingOutput` is the output a connection holds that its client has not taken.
 */
export function answerInTurn(
  listener: RequestListener,
  maxWaiting: number,
  overran: (socket: Socket) => void,
): { listener: RequestListener; waitingOutput: (socket: Socket) => number } {
  const turns = new WeakMap<Socket, Turn>();

  const start = (turn: Turn, req: IncomingMessage, res: ServerResponse, arriving: boolean) => {
    turn.answering = res;
    const done = () => {
      if (turn.answering !== res) return;
      delete turn.answering;
      const next = turn.waiting.shift();
      if (next !== undefined) start(turn, ...next, false);
      else if (turn.paused) {
        delete turn.paused;
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
    let turn = turns.get(socket);
    if (turn === undefined) {
      const fresh: Turn = { waiting: [] };
      turns.set(socket, (turn = fresh));
      socket.once('close', () => fresh.waiting.splice(0));
    }
    if (socket.destroyed) return;
    if (turn.answering === undefined && turn.waiting.length === 0) {
      return start(turn, req, res, true);
    }
    if (turn.waiting.push([req, res]) > maxWaiting) {
      turn.waiting.splice(0);
      overran(socket);
      return void socket.destroy();
    }
    if (!turn.paused) socket.pause();
    turn.paused = true;
  };

  const waitingOutput = (socket: Socket) => {
    const answering = turns.get(socket)?.answering;
    // An answer node:http has not given the socket yet holds its own output.
    return socket.writableLength + (answering?.socket === null ? answering.writableLength : 0);
  };
  return { listener: inTurn, waitingOutput };
}
