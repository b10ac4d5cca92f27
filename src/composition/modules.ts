// The container's default bindings: each seam of TYPES, and the service's own parts under a
// private identifier. The token verifier is bound in container.ts: the CLI's administration
// commands, which load this module, load no verifier.
import {
  type Container,
  ContainerModule,
  type ResolutionContext,
  type ServiceIdentifier,
} from 'inversify';
import type { Config } from '../config/index.js';
import type { OpenedStorage } from '../adapters/limits/limiter-store.js';
import type { RequestCounts } from '../adapters/http/request-observer.js';
import { createLogger } from '../adapters/logger.js';
import { outageReporters, type OutageReporters } from '../adapters/storage/outage-reporter.js';
import { StartingStorage } from '../adapters/storage/starting-storage.js';
import { observedStore } from '../adapters/telemetry/observed-store.js';
import { ServiceMetrics } from '../adapters/telemetry/service-metrics.js';
import { activeTracer } from '../adapters/telemetry/tracing.js';
import { checkReceiverUrl } from '../adapters/webhooks/address-policy.js';
import { WebhookDelivery } from '../adapters/webhooks/webhook-delivery.js';
import { TokenAdministrator } from '../application/token-administrator.js';
import { WebhookAdministrator } from '../application/webhook-administrator.js';
import type { Logger } from '../ports/logger.js';
import { PLANT_STORE_METHODS } from '../ports/plant-store.js';
import { TOKEN_STORE_METHODS } from '../ports/token-store.js';
import { TYPES } from './identifiers.js';
import { openStorage } from './open-storage.js';

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

export const OWN_PARTS: ServiceIdentifier<OwnParts> = Symbol('plant-store own parts');

/**
 * The defaults of TYPES for `config`; nothing connects until the service is resolved. Whatever is
 * bound to the plant and token stores is observed (observed-store.ts). `notice`: where the
 * opener's lines for the operator go (default: the logger).
 */
export const serviceModule = (
  config: Config,
  { notice, onLockLost }: { notice?: (line: string) => void; onLockLost?: (line: string) => void },
): ContainerModule =>
  new ContainerModule(({ bind, onActivation }) => {
    const counts: RequestCounts = { inFlight: 0 };
    bind(TYPES.Logger).toResolvedValue(() => createLogger(config.logLevel));
    bind(TYPES.Clock).toConstantValue(() => new Date());
    bind(TYPES.HttpHostOptions).toConstantValue({});
    if (config.metrics) {
      bind(TYPES.MetricsOptions).toConstantValue({});
      bind(TYPES.Metrics).toResolvedValue(
        (options) => new ServiceMetrics({ inFlight: () => counts.inFlight, ...options }),
        [TYPES.MetricsOptions],
      );
    }
    bind(TYPES.StorageOpener).toResolvedValue(
      (logger: Logger) => (signal: AbortSignal, outages: OutageReporters) =>
        openStorage(config, {
          ...{ logger, signal, outages },
          ...(notice && { notice }),
          ...(onLockLost && { onLockLost }),
        }),
      [TYPES.Logger],
    );
    bind(OWN_PARTS).toResolvedValue(
      (
        logger: Logger,
        metrics: ServiceMetrics | undefined,
        open: (signal: AbortSignal, outages: OutageReporters) => Promise<OpenedStorage>,
      ): OwnParts => {
        const outages = outageReporters(logger, metrics?.storeEvent);
        const storage = new StartingStorage((signal) => open(signal, outages));
        const delivery = new WebhookDelivery(config.webhooks, logger, metrics?.webhooksDropped);
        return { config, storage, outages, delivery, counts };
      },
      [TYPES.Logger, { serviceIdentifier: TYPES.Metrics, optional: true }, TYPES.StorageOpener],
    );
    bind(TYPES.PlantStore).toResolvedValue(({ storage }) => storage.plants, [OWN_PARTS]);
    bind(TYPES.TokenStore).toResolvedValue(({ storage }) => storage.tokens, [OWN_PARTS]);
    // Metrics when bound, the tracer when registered, and the store's outage reporter; a store an
    // embedder bound is labelled `custom`: its technology is not the configured one.
    const observers = (context: ResolutionContext, store: object, part: 'plants' | 'tokens') => {
      const { storage, outages } = context.get<OwnParts>(OWN_PARTS);
      const adapter = store === storage[part] ? config.storage.kind : 'custom';
      const metrics = context.get(TYPES.Metrics, { optional: true });
      return { adapter, metrics, tracer: activeTracer(), outages: outages[part] };
    };
    onActivation(TYPES.PlantStore, (context, store) =>
      observedStore(store, PLANT_STORE_METHODS, observers(context, store, 'plants')),
    );
    onActivation(TYPES.TokenStore, (context, store) =>
      observedStore(store, TOKEN_STORE_METHODS, observers(context, store, 'tokens')),
    );
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

/** The administrations over the bound token store and the storage's webhook subscriptions. */
export function administrations(container: Container) {
  const { config, storage } = container.get(OWN_PARTS);
  return {
    tokenAdministration: new TokenAdministrator(
      container.get(TYPES.TokenStore),
      container.get(TYPES.Clock),
    ),
    webhookAdministration: new WebhookAdministrator(storage.webhooks, (url) =>
      checkReceiverUrl(url, config.webhooks.allowPrivate),
    ),
  };
}

/** What the executables do when the store's lock file is lost: one line, then exit 1 (not a signal). */
export function endProcess(line: string): never {
  process.stderr.write(`plant-store: ${line}\n`);
  process.exit(1);
}
