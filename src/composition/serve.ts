// Serving: the container resolved, the HTTP server listening, shutdown; under `--workers N` the
// primary of a node:cluster, which serves nothing itself: every worker runs the same command line
// and so `serve`, on the one port the cluster shares. `plant-store serve`, `npm start` and
// src/main.ts end here.
import cluster, { type Worker } from 'node:cluster';
import { resolve } from 'node:path';
import type { Config } from '../config/index.js';
import { workerShare } from '../config/http-limits.js';
import { createHttpServer, listenHttpServer } from '../adapters/http/server/http-server.js';
import { shareRefusals, workerRefusals } from '../adapters/http/server/connections.js';
import { trustedPeer } from '../adapters/http/trusted-proxy.js';
import { createLogger } from '../adapters/logger.js';
import { checkServeAddon } from '../adapters/storage/lmdb/lmdb-addon.js';
import {
  instanceMetrics,
  primaryMetrics,
  serveInstanceMetrics,
} from '../adapters/telemetry/cluster-metrics.js';
import { startTracing } from '../adapters/telemetry/tracing.js';
import type { Logger } from '../ports/logger.js';
import { buildContainer, resolveService } from './container.js';
import { endProcess } from './modules.js';
import { TYPES } from './identifiers.js';
import { developmentToken, withStaticDevelopmentToken } from './development-token.js';

/**
 * Listens at once (/readyz 503) while the storage opens, then serves until SIGTERM or SIGINT,
 * drains, closes the storage and exits 0. Resolves once the storage is open; rejects (the port
 * closed again) when it cannot be. With `workers`, this process is the cluster's primary and
 * each worker comes back here, with its share of the per-address bounds (workerShare).
 */
export async function serve(loaded: Config, { workers }: { workers?: number } = {}): Promise<void> {
  // Checked in the primary too, so that bounds the workers cannot share fail the start at once.
  const shared =
    workers === undefined ? loaded : { ...loaded, http: workerShare(loaded.http, workers) };
  if (loaded.storage.kind === 'lmdb' && cluster.isPrimary) checkServeAddon(workers ?? 1);
  if (workers !== undefined && cluster.isPrimary) return serveWorkers(loaded, workers);
  // A worker that cannot start lets go of its primary's channel, or it would never exit.
  return serveHere(shared).catch((error: unknown) => {
    cluster.worker?.disconnect();
    throw error;
  });
}

/** Runs `stop` on SIGTERM and SIGINT, once. */
function onStopSignals(stop: (signal: string) => Promise<void>): void {
  let stopping = false;
  for (const signal of ['SIGTERM', 'SIGINT']) {
    process.on(signal, () => {
      if (!stopping) void stop(signal);
      stopping = true;
    });
  }
}

/** How the listening line names the storage: its kind, and where its data is when on this disk. */
const storageLabel = (storage: Config['storage']): string =>
  `storage: ${storage.kind}${storage.kind === 'lmdb' ? `, data: ${resolve(storage.dataDir)}` : ''}`;

async function serveHere(loaded: Config): Promise<void> {
  const config = withStaticDevelopmentToken(loaded);
  // Before the service is composed, which makes spans only when a provider is registered.
  const stopTracing = await startTracing(process.env);
  const container = buildContainer(config, { onLockLost: endProcess });
  const worker = cluster.worker;
  // A worker ends with its primary, and its lines (access lines too) and its own series (in
  // flight, process metrics) say which worker, by its id; the rest of its metrics are summed.
  if (worker !== undefined) {
    followPrimary();
    const base = createLogger(config.logLevel);
    container.rebind(TYPES.Logger).toConstantValue(base.child?.({ worker: worker.id }) ?? base);
    if (config.metrics) {
      container.rebind(TYPES.MetricsOptions).toConstantValue({
        processLabels: { worker: String(worker.id) },
      });
    }
  }
  const service = await resolveService(container);
  const { logger } = service;
  // GET /metrics on the shared port answers the instance's totals, whichever worker takes it.
  if (worker !== undefined && service.metrics) {
    service.metrics.gatherFrom(instanceMetrics(service.metrics.registry));
  }
  const server = createHttpServer(service.app.callback(), config.http, {
    trustedProxy: trustedPeer(config.trustProxy),
    // Under --workers, an address is refused on every worker at once (each counts every overrun).
    refusals: worker === undefined ? undefined : workerRefusals(),
  });
  try {
    await listenHttpServer(server, config.port, config.host);
  } catch (error) {
    await service.close();
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new Error(`cannot listen on HOST ${config.host}, PORT ${config.port} (${reason})`, {
      cause: error,
    });
  }
  const { port } = server.address() as { port: number };
  const where = { host: config.host, port, storage: config.storage.kind };

  let stopping = false;
  onStopSignals(async (signal) => {
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // Stop accepting (/readyz answers 503 from now on), answer what was received with
    // `Connection: close`, close keep-alive connections between requests (http-server.ts), then
    // close the storage.
    const closed = new Promise((resolve) => server.close(resolve));
    const graceSeconds = config.shutdownGraceSeconds;
    const force = setTimeout(() => {
      const inFlight = service.requestsInFlight();
      if (inFlight > 0) {
        logger.warn(
          { inFlight, graceSeconds },
          'the grace period ended with requests in flight; closing their connections',
        );
      }
      server.closeAllConnections();
    }, graceSeconds * 1000).unref();
    await closed;
    clearTimeout(force);
    await service.close();
    await stopTracing?.().catch(() => {});
    process.exit(0);
  });

  logger.info(where, 'port open; opening the storage (/readyz answers 503 until it is open)');
  try {
    await service.opened;
  } catch (error) {
    // Stopped while waiting: stop() exits.
    if (stopping) return;
    server.close();
    server.closeAllConnections();
    throw error;
  }
  // One reminder or hint per instance: from the first worker of a cluster only.
  await developmentToken(config, container.get(TYPES.TokenStore), (worker?.id ?? 1) === 1);
  // Delivery starts once the stores it reads are open (in every worker of a cluster).
  await service.startDelivery();
  logger.info(worker ? { ...where, pid: process.pid } : where, 'listening');
  // A worker tells its primary, which prints the line once every worker is ready.
  if (worker) {
    process.send?.(WORKER_READY);
    return;
  }
  console.error(
    `plant-store: listening on http://${config.host}:${port} (${storageLabel(config.storage)})`,
  );
}

const SHUTDOWN_GRACE_MS = 15_000;
const RESTART_DELAY_MS = 1000;
const WORKER_READY = 'plant-store:ready';

/** Asks every worker to drain and exit (SIGTERM), kills what is left after the grace period. */
async function stopAll(): Promise<void> {
  const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
  for (const worker of workers) worker.process.kill('SIGTERM');
  const force = setTimeout(() => {
    for (const worker of workers) worker.process.kill('SIGKILL');
  }, SHUTDOWN_GRACE_MS).unref();
  await Promise.all(
    workers.map((worker) => worker.isDead() || new Promise((done) => worker.once('exit', done))),
  );
  clearTimeout(force);
}

/**
 * Forks `count` workers and resolves (printing the listening line) once every one is ready. A
 * worker that dies later is replaced; one that dies before fails the start.
 */
async function serveWorkers(config: Config, count: number): Promise<void> {
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
  if (config.metrics) serveInstanceMetrics({ workers: serving, logger, own: primaryMetrics() });
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
  onStopSignals(async (signal) => {
    stopping = true;
    unwatch();
    logger.info({ signal }, 'shutting down the workers');
    await stopAll();
    process.exit(0);
  });
}

// A worker whose event loop stops (SIGSTOP, an endless loop) keeps its connections and its place
// in node:cluster's round robin, and no 'exit' ever says so. The primary pings every serving
// worker over IPC; one that misses too many answers in a row is killed, and the cluster's 'exit'
// handler starts another.
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

// In a worker: answers the primary's pings, and ends at once with SIGKILL (a crash LMDB is made
// for) when the primary is gone without asking it to leave: node:cluster's own handler calls
// process.exit(), which can hang for good on lmdb-js's writer thread holding the write lock.
function followPrimary(): void {
  process.on('message', (message: unknown) => {
    if (message === PING) process.send?.(PONG);
  });
  process.prependOnceListener('disconnect', () => {
    if (cluster.worker?.exitedAfterDisconnect) return;
    console.error(`plant-store: worker ${process.pid}: the primary is gone; stopping`);
    process.kill(process.pid, 'SIGKILL');
  });
}
