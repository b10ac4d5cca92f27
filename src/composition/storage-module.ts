import { ContainerModule, type ServiceIdentifier } from 'inversify';
import type { Config } from '../config/index.js';
import type { RequestCounts } from '../adapters/http/request-observer.js';
import { outageReporters, type OutageReporters } from '../adapters/storage/outage-reporter.js';
import type { OpenedStorage } from '../adapters/limits/limiter-store.js';
import { StartingStorage } from '../adapters/storage/starting-storage.js';
import type { ServiceMetrics } from '../adapters/telemetry/service-metrics.js';
import { WebhookDelivery } from '../adapters/webhooks/webhook-delivery.js';
import type { Logger } from '../ports/logger.js';
import { openStorage } from './open-storage.js';
import { TYPES } from './identifiers.js';

/** What the service opens, closes and counts itself: no seam, so not in TYPES. */
export interface OwnParts {
  readonly config: Config;
  /** The configured storage as it opens: its stores answer 503 until it is open. */
  readonly storage: StartingStorage;
  /** Where each store reports losing and regaining its server (its adapter and its observer). */
  readonly outages: OutageReporters;
  /** Webhook delivery from the storage's outbox, started by `serve` once the storage is open. */
  readonly delivery: WebhookDelivery;
  /** Requests in flight, counted by the HTTP app (read at shutdown and by a gauge). */
  readonly counts: RequestCounts;
}

type StorageOpener = (signal: AbortSignal, outages: OutageReporters) => Promise<OpenedStorage>;

export const OWN_PARTS: ServiceIdentifier<OwnParts> = Symbol('plant-store own parts');

/**
 * The storage (by default the configured one: memory, LMDB, Redis or MongoDB, by PLANT_STORE_STORAGE; a server's
 * driver is loaded only when chosen), its plant and token stores, what /readyz asks of them, and
 * who hears of a recorded event (webhook delivery). Nothing connects until the service is
 * resolved. `notice`: where the opener's lines for the operator go (default: the logger).
 */
export const storageModule = (
  config: Config,
  {
    counts = { inFlight: 0 },
    notice,
    onLockLost,
  }: {
    counts?: RequestCounts;
    notice?: (line: string) => void;
    onLockLost?: (line: string) => void;
  },
): ContainerModule =>
  new ContainerModule(({ bind }) => {
    bind(TYPES.StorageOpener).toResolvedValue(
      (logger: Logger) => (signal: AbortSignal, outages: OutageReporters) =>
        openStorage(config, {
          logger,
          signal,
          outages,
          ...(notice && { notice }),
          ...(onLockLost && { onLockLost }),
        }),
      [TYPES.Logger],
    );
    bind(OWN_PARTS).toResolvedValue(
      (logger: Logger, metrics: ServiceMetrics | undefined, open: StorageOpener): OwnParts => {
        const outages = outageReporters(logger, metrics?.storeEvent);
        const storage = new StartingStorage((signal) => open(signal, outages));
        const delivery = new WebhookDelivery(config.webhooks, logger, metrics?.webhooksDropped);
        return { config, storage, outages, delivery, counts };
      },
      [TYPES.Logger, { serviceIdentifier: TYPES.Metrics, optional: true }, TYPES.StorageOpener],
    );
    bind(TYPES.PlantStore).toResolvedValue(({ storage }) => storage.plants, [OWN_PARTS]);
    bind(TYPES.TokenStore).toResolvedValue(({ storage }) => storage.tokens, [OWN_PARTS]);
    // The stores bound (an embedder's too); an embedder rebinds the list to add or drop a check.
    bind(TYPES.ReadinessChecks).toResolvedValue(
      (plants, tokens) => [
        { name: 'plants', ping: () => plants.ping() },
        { name: 'tokens', ping: () => tokens.ping() },
      ],
      [TYPES.PlantStore, TYPES.TokenStore],
    );
    bind(TYPES.PlantEvents).toResolvedValue(({ delivery }) => delivery, [OWN_PARTS]);
  });

/** What the executables do when the store's lock file is lost: one line, then exit 1 (not a signal). */
export function endProcess(line: string): never {
  process.stderr.write(`plant-store: ${line}\n`);
  process.exit(1);
}
