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
import { inOrder, USE_CASE_DECORATORS } from './request-path.js';

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
      (logger, metrics) => new WebhookDelivery(config.webhooks, logger, metrics?.webhooksDropped),
      [TYPES.Logger, optional(TYPES.Metrics)],
    );
    bind(TYPES.PlantEvents).toResolvedValue((delivery) => delivery, [TYPES.WebhookDelivery]);
  });

/**
 * The use cases (driving ports) over the stores bound: what `serve`, an embedder and the CLI's
 * `tokens` and `webhooks` commands resolve alike.
 */
export const applicationModule = (config: Config): ContainerModule =>
  new ContainerModule(({ bind }) => {
    // The decorators around the use cases and around the stores: request-path.ts.
    bind(TYPES.PlantUseCases).toResolvedValue(
      (store, events, tracer) => {
        const decorators = inOrder(USE_CASE_DECORATORS, {
          'traced-use-cases': (plants: PlantUseCases) =>
            tracer ? tracedUseCases(plants, tracer) : plants,
        });
        return decorators.reduceRight<PlantUseCases>(
          (plants, decorate) => decorate(plants),
          new PlantService(store, events),
        );
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
