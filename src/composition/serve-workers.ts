// `plant-store serve --workers N`: the primary process of a node:cluster, which serves nothing
// itself. Every worker runs the same command line and so `serve` (serve.ts), on the one port
// the cluster shares; the stores must be shared ones (LMDB, Redis, MongoDB: not memory), which
// the CLI checks.
import cluster, { type Worker } from 'node:cluster';
import { resolve } from 'node:path';
import type { Config } from '../config/index.js';
import { shareRefusals } from '../adapters/http/server/overrun-refusals.js';
import { createLogger } from '../adapters/logger.js';
import { primaryMetrics, serveInstanceMetrics } from '../adapters/telemetry/cluster-metrics.js';
import type { Logger } from '../ports/logger.js';

const SHUTDOWN_GRACE_MS = 15_000;
/** What a worker sends its primary once its storage is open and it serves (serve.ts). */
export const WORKER_READY = 'plant-store:ready';
const RESTART_DELAY_MS = 1000;

/** Resolves once the worker has exited. */
const exited = (worker: Worker): Promise<void> =>
  worker.isDead()
    ? Promise.resolve()
    : new Promise((resolve) => worker.once('exit', () => resolve()));

/** Asks every worker to drain and exit (SIGTERM), kills what is left after the grace period. */
async function stopAll(): Promise<void> {
  const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
  for (const worker of workers) worker.process.kill('SIGTERM');
  const force = setTimeout(() => {
    for (const worker of workers) worker.process.kill('SIGKILL');
  }, SHUTDOWN_GRACE_MS).unref();
  await Promise.all(workers.map(exited));
  clearTimeout(force);
}

/**
 * Forks `count` workers and resolves once every one is ready, its port open and its storage too
 * (readiness across workers), printing the listening line only then. A worker that dies later is
 * replaced; one that dies before the cluster is up fails the start. SIGTERM or SIGINT: every
 * worker drains, then the primary exits 0.
 */
export async function serveWorkers(config: Config, count: number): Promise<void> {
  const logger = createLogger(config.logLevel);
  let stopping = false;
  let ready = false;
  const up = new Set<number>();
  let port = 0;
  const started = new Promise<void>((resolve, reject) => {
    cluster.on('listening', (_worker, address) => {
      port = address.port;
    });
    cluster.on('message', (worker, message) => {
      if (message !== WORKER_READY) return;
      up.add(worker.id);
      if (up.size === count) resolve();
    });
    cluster.on('exit', (worker, code, signal) => {
      up.delete(worker.id);
      if (stopping) return;
      const how = signal ?? `code ${code}`;
      // Before the cluster is up, a worker that dies is a start that failed (bad storage, port).
      if (!ready) return reject(new Error(`a worker exited (${how}) before it was ready`));
      logger.warn(
        { worker: worker.id, pid: worker.process.pid, exit: how },
        'worker exited; starting another',
      );
      setTimeout(() => stopping || cluster.fork(), RESTART_DELAY_MS).unref();
    });
  });
  const serving = () =>
    [...up].flatMap((id) => cluster.workers?.[id] ?? []).filter((worker) => !worker.isDead());
  // Workers ask for the instance's metrics (GET /metrics); the primary gathers them, its own too.
  if (config.metrics !== false) {
    serveInstanceMetrics({ workers: serving, logger, own: primaryMetrics() });
  }
  // Workers report addresses pipelining past the bound; the primary passes each on to every worker.
  shareRefusals();
  for (let i = 0; i < count; i++) cluster.fork();
  try {
    await started;
  } catch (error) {
    stopping = true;
    await stopAll();
    throw error;
  }
  ready = true;
  const unwatch = watchWorkers(serving, logger);
  logger.info({ host: config.host, port, workers: count }, 'listening');
  // Human lines go to stderr: stdout holds only the JSON log lines.
  console.error(
    `plant-store: listening on http://${config.host}:${port} (${storageLabel(config.storage)}, workers: ${count})`,
  );
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    unwatch();
    logger.info({ signal }, 'shutting down the workers');
    await stopAll();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

// `serve --workers N`: a worker whose event loop stops (SIGSTOP, an endless loop) keeps its
// connections and its place in node:cluster's round robin, and no 'exit' ever says so. The
// primary pings every serving worker over IPC; one that misses too many answers in a row is
// killed, and the cluster's 'exit' handler starts another.
const PING = 'plant-store:ping';
const PONG = 'plant-store:pong';
const HEARTBEAT_MS = 1000;
/** Pings missed in a row before a worker is killed: a worker is replaced within about 6 s. */
const HEARTBEAT_MISSES = 5;

/** In the primary: watches the serving workers (a starting one may be busy loading its code). */
function watchWorkers(workers: () => Iterable<Worker>, logger: Logger): () => void {
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
      if (missed >= HEARTBEAT_MISSES) {
        logger.warn(
          { worker: worker.id, pid: worker.process.pid, missed, heartbeatMs: HEARTBEAT_MS },
          'a worker stopped answering its primary; killing it',
        );
        unanswered.delete(worker.id);
        worker.process.kill('SIGKILL');
        continue;
      }
      unanswered.set(worker.id, missed + 1);
      worker.send(PING);
    }
  }, HEARTBEAT_MS);
  return () => {
    clearInterval(timer);
    cluster.off('message', onMessage);
    cluster.off('exit', onExit);
  };
}

/**
 * In a worker: answers the primary's pings, and ends at once with SIGKILL (a crash LMDB is made
 * for) when the primary is gone without asking it to leave. node:cluster's own handler calls
 * process.exit(), which can hang for good on lmdb-js's writer thread holding the write lock.
 */
export function followPrimary(): void {
  process.on('message', (message: unknown) => {
    if (message === PING) process.send?.(PONG);
  });
  process.prependOnceListener('disconnect', () => {
    if (cluster.worker?.exitedAfterDisconnect) return;
    console.error(`plant-store: worker ${process.pid}: the primary is gone; stopping`);
    process.kill(process.pid, 'SIGKILL');
  });
}

/** How the listening line names the storage: its kind, and where its data is when on this disk. */
export function storageLabel(storage: Config['storage']): string {
  const data = storage.kind === 'lmdb' ? `, data: ${resolve(storage.dataDir)}` : '';
  return `storage: ${storage.kind}${data}`;
}
