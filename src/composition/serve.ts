// Serving: the container resolved, the HTTP server listening, shutdown. `plant-store serve`,
// `npm start` and src/main.ts end here.
import cluster from 'node:cluster';
import type { Config } from '../config/index.js';
import { workerShare } from '../config/http-limits.js';
import { createHttpServer, listenHttpServer } from '../adapters/http/server/http-server.js';
import { workerRefusals } from '../adapters/http/server/overrun-refusals.js';
import { trustedPeer } from '../adapters/http/trusted-proxy.js';
import { createLogger } from '../adapters/logger.js';
import { checkServeAddon } from '../adapters/storage/lmdb/lmdb-addon.js';
import { instanceMetrics } from '../adapters/telemetry/cluster-metrics.js';
import { startTracing } from '../adapters/telemetry/tracing.js';
import { buildContainer, resolveService } from './container.js';
import { endProcess } from './modules.js';
import { TYPES } from './identifiers.js';
import { followPrimary, serveWorkers, storageLabel, WORKER_READY } from './serve-workers.js';
import { developmentToken, withStaticDevelopmentToken } from './development-token.js';

/**
 * Builds the service, listens on HOST and PORT at once (/healthz answers, /readyz is 503) while
 * the storage opens, waiting up to PLANT_STORE_STARTUP_TIMEOUT for it; then prints the listening
 * line and serves. Runs until SIGTERM or SIGINT; then drains requests, closes the storage and
 * exits 0. Resolves once the storage is open; rejects (the port closed again) when it cannot be.
 * With `workers`, this process becomes the cluster's primary and each worker process comes back
 * here to serve, with its share of the per-address bounds (workerShare).
 */
export async function serve(loaded: Config, { workers }: { workers?: number } = {}): Promise<void> {
  // Checked in the primary too, so that bounds the workers cannot share fail the start at once.
  const shared =
    workers === undefined ? loaded : { ...loaded, http: workerShare(loaded.http, workers) };
  if (loaded.storage.kind === 'lmdb' && cluster.isPrimary) checkServeAddon(workers ?? 1);
  if (workers !== undefined && cluster.isPrimary) {
    return serveWorkers(loaded, workers);
  }
  // A worker that cannot start lets go of its primary's channel, or it would never exit.
  return serveHere(shared).catch((error: unknown) => {
    cluster.worker?.disconnect();
    throw error;
  });
}

async function serveHere(loaded: Config): Promise<void> {
  const config = withStaticDevelopmentToken(loaded);
  // Before the service is composed, which makes spans only when a provider is registered.
  const stopTracing = await startTracing(process.env);
  const container = buildContainer(config, { onLockLost: endProcess });
  const worker = cluster.worker;
  // A worker ends with its primary, and its lines (access lines too) say which worker, by the id
  // its metrics carry.
  if (worker !== undefined) {
    followPrimary();
    const base = createLogger(config.logLevel);
    container.rebind(TYPES.Logger).toConstantValue(base.child?.({ worker: worker.id }) ?? base);
  }
  // A worker's own series (in flight, process metrics) say which worker; the rest are summed.
  if (worker !== undefined && config.metrics !== false) {
    container.rebind(TYPES.MetricsOptions).toConstantValue({
      processLabels: { worker: String(worker.id) },
    });
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
  const stop = async (signal: string) => {
    if (stopping) return;
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
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

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
  logger.info(cluster.isWorker ? { ...where, pid: process.pid } : where, 'listening');
  // A worker tells its primary, which prints the line once every worker is ready.
  if (cluster.isWorker) {
    process.send?.(WORKER_READY);
    return;
  }
  console.error(
    `plant-store: listening on http://${config.host}:${port} (${storageLabel(config.storage)})`,
  );
}
