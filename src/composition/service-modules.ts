import { ContainerModule } from 'inversify';
import { PlantService } from '../application/plant-service.js';
import { TokenAdministrator } from '../application/token-administrator.js';
import { WebhookAdministrator } from '../application/webhook-administrator.js';
import { checkReceiverUrl } from '../adapters/webhooks/address-policy.js';
import type { Config } from '../config/index.js';
import { createLogger } from '../adapters/logger.js';
import { tracedUseCases } from '../adapters/telemetry/traced-use-cases.js';
import { WebhookDelivery } from '../adapters/webhooks/webhook-delivery.js';
import type { PlantUseCases } from '../ports/plant-use-cases.js';
import { optional, TYPES } from './identifiers.js';

/** The logger (pino on stdout at LOG_LEVEL) and the clock. */
export const baseModule = (config: Config): ContainerModule =>
  new ContainerModule(({ bind }) => {
    bind(TYPES.Logger).toResolvedValue(() => createLogger(config.logLevel));
    bind(TYPES.Clock).toConstantValue(() => new Date());
  });

/** Webhook delivery: told of each recorded event, started on the storage's outbox by `serve`. */
export const webhooksModule = (config: Config): ContainerModule =>
  new ContainerModule(({ bind }) => {
    bind(TYPES.WebhookDelivery).toResolvedValue(
      (logger) => new WebhookDelivery(config.webhooks, logger),
      [TYPES.Logger],
    );
    bind(TYPES.PlantEvents).toResolvedValue((delivery) => delivery, [TYPES.WebhookDelivery]);
  });

/**
 * The use cases (driving ports) over the stores bound: what `serve`, an embedder and the CLI's
 * `tokens` and `webhooks` commands resolve alike.
 */
export const applicationModule = (config: Config): ContainerModule =>
  new ContainerModule(({ bind }) => {
    // A span per use case when a tracer is bound (the stores' decorators: telemetry-module.ts).
    bind(TYPES.PlantUseCases).toResolvedValue(
      (store, events, tracer) => {
        const plants: PlantUseCases = new PlantService(store, events);
        return tracer ? tracedUseCases(plants, tracer) : plants;
      },
      [TYPES.PlantStore, optional(TYPES.PlantEvents), optional(TYPES.Tracer)],
    );
    bind(TYPES.TokenAdministration).toResolvedValue(
      (store, clock) => new TokenAdministrator(store, clock),
      [TYPES.TokenStore, TYPES.Clock],
    );
    const { allowPrivate } = config.webhooks;
    bind(TYPES.WebhookAdministration).toResolvedValue(
      (storage) =>
        new WebhookAdministrator(storage.webhooks, (url) => checkReceiverUrl(url, allowPrivate)),
      [TYPES.Storage],
    );
  });
