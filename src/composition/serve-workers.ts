// `plant-store serve --workers N`: the primary process of a node:cluster, which serves nothing
// itself. Every worker runs the same command line and so `serve` (serve.ts), on the one port
// the cluster shares; the stores must be shared ones (LMDB, Redis, MongoDB: not memory), which the CLI checks.
import cluster, { type Worker } from 'node:cluster';
import type { Config } from '../config/index.js';
import { shareRefusals } from '../adapters/http/server/overrun-refusals.js';
import { createLogger } from '../adapters/logger.js';
import { primaryMetrics, serveInstanceMetrics } from '../adapters/telemetry/cluster-metrics.js';
import { watchWorkers } from './worker-heartbeat.js';
import { storageLabel } from './storage-label.js';

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
  const unwatch = watchWorkers({ workers: serving, logger });
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
