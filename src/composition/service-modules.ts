import { ContainerModule } from 'inversify';
import { PlantService } from '../application/plant-service.js';
import { TokenAdministrator } from '../application/token-administrator.js';
import { WebhookAdministrator } from '../application/webhook-administrator.js';
import { checkReceiverUrl } from '../adapters/webhooks/address-policy.js';
import type { Config } from '../config/index.js';
import { createHttpApp } from '../adapters/http/app.js';
import { createLogger } from '../adapters/logger.js';
import { tracedUseCases } from '../adapters/telemetry/traced-use-cases.js';
import { defaultWebhookConfig } from '../adapters/webhooks/webhook-config.js';
import { WebhookDelivery } from '../adapters/webhooks/webhook-delivery.js';
import { optional, TYPES } from './identifiers.js';

/** The configuration, the logger (pino on stdout at LOG_LEVEL) and the clock. */
export const baseModule = (config: Config): ContainerModule =>
  new ContainerModule(({ bind }) => {
    bind(TYPES.Config).toConstantValue(config);
    bind(TYPES.Logger).toResolvedValue(() => createLogger(config.logLevel));
    bind(TYPES.Clock).toConstantValue(() => new Date());
  });

/** Webhook delivery: told of each recorded event, started on the storage's outbox by `serve`. */
export const webhooksModule = (config: Config): ContainerModule =>
  new ContainerModule(({ bind }) => {
    bind(TYPES.WebhookDelivery).toResolvedValue(
      (logger) => new WebhookDelivery(config.webhooks ?? defaultWebhookConfig(), logger),
      [TYPES.Logger],
    );
    bind(TYPES.PlantEvents).toResolvedValue((delivery) => delivery, [TYPES.WebhookDelivery]);
  });

/** The use cases (driving ports) over the stores bound; plant use cases traced when a tracer is. */
export const applicationModule = (config: Config): ContainerModule =>
  new ContainerModule(({ bind }) => {
    bind(TYPES.PlantUseCases).toResolvedValue(
      (store, events, tracer) => {
        const plants = new PlantService(store, events);
        return tracer ? tracedUseCases(plants, tracer) : plants;
      },
      [TYPES.PlantStore, optional(TYPES.PlantEvents), optional(TYPES.Tracer)],
    );
    bind(TYPES.TokenAdministration).toResolvedValue(
      (store, clock) => new TokenAdministrator(store, clock),
      [TYPES.TokenStore, TYPES.Clock],
    );
    const { allowPrivate } = config.webhooks ?? defaultWebhookConfig();
    bind(TYPES.WebhookAdministration).toResolvedValue(
      (storage) =>
        new WebhookAdministrator(storage.webhooks, (url) => checkReceiverUrl(url, allowPrivate)),
      [TYPES.Storage],
    );
  });

/** The Koa application of the whole contract. */
export const httpModule = (config: Config): ContainerModule =>
  new ContainerModule(({ bind }) => {
    bind(TYPES.HttpHostOptions).toConstantValue({});
    bind(TYPES.HttpApp).toResolvedValue(
      (plants, verifier, store, logger, counts, host, limiterStore, metrics, tracer) =>
        createHttpApp({
          plants,
          tokens: verifier,
          store,
          // Readiness asks the verifier's store; a verifier without one (an embedder's) is not asked.
          tokenStore: verifier.ping && { ping: () => verifier.ping!() },
          logger,
          rateLimit: config.rateLimit,
          authFailureLimit: config.authFailureLimit ?? 0,
          limiterStore: limiterStore(),
          docs: config.docs,
          accessLog: config.accessLog ?? true,
          metrics,
          tracer,
          counts,
          trustProxy: config.trustProxy,
          ...host,
        }),
      [
        TYPES.PlantUseCases,
        TYPES.TokenVerifier,
        TYPES.PlantStore,
        TYPES.Logger,
        TYPES.RequestCounts,
        TYPES.HttpHostOptions,
        TYPES.LimiterStore,
        optional(TYPES.Metrics),
        optional(TYPES.Tracer),
      ],
    );
  });
