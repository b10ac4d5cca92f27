import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface OutputLimits {
  /** How long a connection's output may wait, unread by its client, before it is destroyed. */
  sendTimeoutMs: number;
  /** Output waiting on all connections together; past it the longest-waiting ones are destroyed. */
  maxBufferedOutputBytes: number;
  /** How often the connections are checked. */
  intervalMs: number;
}

/** What the output watch knows of a connection between its sweeps. */
export interface OutputWatch {
  /** Whether the connection's client has left output unread since an earlier sweep (it is not reading). */
  stalled(socket: Socket): boolean;
}

/**
 * Bounds what clients that do not read can hold: a sweep over the open connections (nothing per
 * request) destroys those whose output has been waiting, without emptying once, longer than the
 * send timeout, and then the longest-waiting ones while all output together exceeds the budget.
 * A connection's output is what `waitingOutput` counts: its socket's and its queued answers'.
 */
export function watchOutput(
  server: Server,
  limits: OutputLimits,
  waitingOutput: (socket: Socket) => number = (socket) => socket.writableLength,
): OutputWatch {
  // Per connection: since when its output has been waiting (0 while none is).
  const waiting = new Map<Socket, number>();
  server.on('connection', (socket: Socket) => {
    waiting.set(socket, 0);
    socket.once('close', () => waiting.delete(socket));
  });
  const sweep = () => {
    const now = Date.now();
    let total = 0;
    const stalled: [Socket, number, number][] = [];
    for (const [socket, since] of waiting) {
      const pending = waitingOutput(socket);
      if (pending === 0) {
        if (since !== 0) waiting.set(socket, 0);
      } else if (since === 0) {
        waiting.set(socket, now);
        total += pending;
        stalled.push([socket, now, pending]);
      } else if (now - since >= limits.sendTimeoutMs) {
        socket.destroy();
      } else {
        total += pending;
        stalled.push([socket, since, pending]);
      }
    }
    if (total <= limits.maxBufferedOutputBytes) return;
    stalled.sort((a, b) => a[1] - b[1]);
    for (const [socket, , pending] of stalled) {
      if (total <= limits.maxBufferedOutputBytes) break;
      total -= pending;
      socket.destroy();
    }
  };
  const timer = setInterval(sweep, limits.intervalMs);
  timer.unref();
  server.once('close', () => clearInterval(timer));
  return {
    stalled(socket) {
      const since = waiting.get(socket) ?? 0;
      return since !== 0 && waitingOutput(socket) > 0;
    },
  };
}
