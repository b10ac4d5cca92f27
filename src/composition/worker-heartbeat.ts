// `serve --workers N`: a worker whose event loop stops (SIGSTOP, an endless loop) keeps its
// connections and its place in node:cluster's round robin, and no 'exit' ever says so. The
// primary pings every serving worker over IPC; one that misses too many answers in a row is
// killed, and the cluster's 'exit' handler starts another.
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from '../ports/logger.js';

const PING = 'plant-store:ping';
const PONG = 'plant-store:pong';
export const HEARTBEAT_MS = 1000;
/** Pings missed in a row before a worker is killed: a worker is replaced within about 6 s. */
export const HEARTBEAT_MISSES = 5;

export interface HeartbeatOptions {
  /** The workers to watch: those serving (a starting worker may be busy loading its code). */
  workers: () => Iterable<Worker>;
  logger: Logger;
  everyMs?: number;
  misses?: number;
}

/** In the primary: watches the workers until the returned function is called. */
export function watchWorkers({
  workers,
  logger,
  everyMs = HEARTBEAT_MS,
  misses = HEARTBEAT_MISSES,
}: HeartbeatOptions): () => void {
  const unanswered = new Map<number, number>();
  const onMessage = (worker: Worker, message: unknown): void => {
    if (message === PONG) unanswered.set(worker.id, 0);
  };
  const onExit = (worker: Worker): void => void unanswered.delete(worker.id);
  cluster.on('message', onMessage);
  cluster.on('exit', onExit);
  const timer = setInterval(() => {
    for (const worker of workers()) {
      if (!worker.isConnected()) continue;
      const missed = unanswered.get(worker.id) ?? 0;
      if (missed >= misses) {
        logger.warn(
          { worker: worker.id, pid: worker.process.pid, missed, heartbeatMs: everyMs },
          'a worker stopped answering its primary; killing it',
        );
        unanswered.delete(worker.id);
        worker.process.kill('SIGKILL');
        continue;
      }
      unanswered.set(worker.id, missed + 1);
      worker.send(PING);
    }
  }, everyMs);
  return () => {
    clearInterval(timer);
    cluster.off('message', onMessage);
    cluster.off('exit', onExit);
  };
}

/** In a worker: answers the primary's pings. */
export function answerPings(): void {
  process.on('message', (message: unknown) => {
    if (message === PING) process.send?.(PONG);
  });
}

/**
 * In a worker: when the primary is gone (the channel closed without this worker asking to leave),
 * end at once with SIGKILL, a crash LMDB is made for (what was acknowledged is on disk).
 * node:cluster's own 'disconnect' handler calls process.exit(), which joins libuv's thread pool;
 * lmdb-js's writer thread can be there waiting, inside a write transaction, for the event loop
 * that process.exit() stopped: the worker hung for good holding LMDB's write lock, and every
 * write of the machine on that data directory waited on it (seen under `--workers 2` when the
 * primary was killed while a replacement worker started).
 */
export function dieWithPrimary(): void {
  process.prependOnceListener('disconnect', () => {
    if (cluster.worker?.exitedAfterDisconnect) return;
    console.error(`plant-store: worker ${process.pid}: the primary is gone; stopping`);
    process.kill(process.pid, 'SIGKILL');
  });
}
