import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface OutputLimits {
  /** How long a connection's output may wait, unread by its client, before it is destroyed. */
  sendTimeoutMs: number;
  /** Output waiting on all connections together; past it the longest-waiting ones are destroyed. */
  maxBufferedOutputBytes: number;
  intervalMs: number;
}

/** Whether a connection's client has left output unread since an earlier sweep (it is not reading). */
export type Stalled = (socket: Socket) => boolean;

/**
 * Bounds what clients that do not read can hold, which node:http leaves unbounded: a sweep over
 * the connections (nothing per request) destroys those whose output has waited, without emptying
 * once, longer than the send timeout, then the longest-waiting ones while all output together
 * exceeds the budget. `waitingOutput` counts a connection's output: its socket's and its queued answers'.
 */
export function watchOutput(
  server: Server,
  limits: OutputLimits,
  waitingOutput: (socket: Socket) => number,
): Stalled {
  // Per connection: since when its output has been waiting (0 while none is).
  const waiting = new Map<Socket, number>();
  server.on('connection', (socket: Socket) => {
    waiting.set(socket, 0);
    socket.once('close', () => waiting.delete(socket));
  });
  const sweep = () => {
    const now = Date.now();
    let total = 0;
    const held: [Socket, number, number][] = [];
    for (const [socket, since] of waiting) {
      const pending = waitingOutput(socket);
      if (pending === 0) {
        waiting.set(socket, 0);
      } else if (since !== 0 && now - since >= limits.sendTimeoutMs) {
        socket.destroy();
      } else {
        if (since === 0) waiting.set(socket, now);
        total += pending;
        held.push([socket, since || now, pending]);
      }
    }
    if (total <= limits.maxBufferedOutputBytes) return;
    held.sort((a, b) => a[1] - b[1]);
    for (const [socket, , pending] of held) {
      if (total <= limits.maxBufferedOutputBytes) break;
      total -= pending;
      socket.destroy();
    }
  };
  const timer = setInterval(sweep, limits.intervalMs).unref();
  server.once('close', () => clearInterval(timer));
  return (socket) => (waiting.get(socket) ?? 0) !== 0 && waitingOutput(socket) > 0;
}
