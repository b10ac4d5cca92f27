import { Container } from 'inversify';
import type { Config } from '../config/index.js';
import { createHttpApp, type HttpApp } from '../adapters/http/app.js';
import { CompositeTokenVerifier } from '../adapters/auth/composite-token-verifier.js';
import { JwtTokenVerifier } from '../adapters/auth/jwt-token-verifier.js';
import { ManagedTokenVerifier } from '../adapters/auth/managed-token-verifier.js';
import { StaticTokenVerifier } from '../adapters/auth/static-token-verifier.js';
import { IN_PROCESS } from '../adapters/limits/limiter-store.js';
import { activeTracer, tracedUseCases } from '../adapters/telemetry/tracing.js';
import { PlantService } from '../application/plant-service.js';
import type { ServiceMetrics } from '../adapters/telemetry/service-metrics.js';
import type { Logger } from '../ports/logger.js';
import type { PlantStore } from '../ports/plant-store.js';
import type { PlantUseCases } from '../ports/plant-use-cases.js';
import type { TokenAdministration } from '../ports/token-administration.js';
import type { TokenStore } from '../ports/token-store.js';
import type { WebhookAdministration } from '../ports/webhook-administration.js';
import { TYPES } from './identifiers.js';
import { administrations, OWN_PARTS, serviceModule } from './modules.js';

// The type `buildContainer` returns and `buildService`'s `configure` receives, re-exported so that
// an embedder types its code without a dependency on inversify of its own.
export type { Container };

/** The service, resolved from its container: what a host program uses. */
export interface Service {
  /** Mount `app.callback()` on a node:http server, or the app in a host Koa app. */
  app: HttpApp;
  /** The use cases, for callers without HTTP. */
  plants: PlantUseCases;
  tokenAdministration: TokenAdministration;
  webhookAdministration: WebhookAdministration;
  /** The plant store behind the use cases (observed). */
  plantStore: PlantStore;
  logger: Logger;
  /** Undefined when PLANT_STORE_METRICS is off. */
  metrics: ServiceMetrics | undefined;
  /** Resolves once the storage is open; rejects with why it cannot be (the service is then closed). */
  readonly opened: Promise<void>;
  /** Starts delivering webhooks from the storage's outbox once it is open (`serve` does). */
  startDelivery(): Promise<void>;
  requestsInFlight(): number;
  /** Stops delivery and closes the storage the service opened (bound stores stay the caller's). */
  close(): Promise<void>;
}

/** The service's container for `config`: rebind any identifier of TYPES before `resolveService`. */
export function buildContainer(
  config: Config,
  { onLockLost }: { onLockLost?: (line: string) => void } = {},
): Container {
  const container = new Container({ defaultScope: 'Singleton' });
  container.load(serviceModule(config, { ...(onLockLost && { onLockLost }) }));
  // Bearer tokens: configured (static), managed (the token store, cached), JWT (when configured).
  container.bind(TYPES.TokenVerifier).toResolvedValue(
    (tokenStore: TokenStore, logger: Logger, metrics: ServiceMetrics | undefined) =>
      new CompositeTokenVerifier(
        {
          static: new StaticTokenVerifier(config.staticTokens),
          managed: new ManagedTokenVerifier(tokenStore, {
            logger,
            ttlMs: config.tokenCacheSeconds * 1000,
          }),
          jwt: config.jwt && new JwtTokenVerifier(config.jwt, { logger }),
        },
        metrics?.tokenVerified,
      ),
    [TYPES.TokenStore, TYPES.Logger, { serviceIdentifier: TYPES.Metrics, optional: true }],
  );
  return container;
}

/**
 * Resolves the service at once, its storage opening in the background (up to
 * PLANT_STORE_STARTUP_TIMEOUT); until then its stores answer 503, and a host serves /healthz.
 */
export async function resolveService(container: Container): Promise<Service> {
  const { config, storage, delivery, counts } = container.get(OWN_PARTS);
  try {
    const opened = storage.opened.then(
      () => {},
      async (error: unknown) => {
        await storage.close();
        throw error;
      },
    );
    const tracer = activeTracer();
    const plantStore = container.get(TYPES.PlantStore);
    const service = new PlantService(
      plantStore,
      container.get(TYPES.PlantEvents, { optional: true }),
    );
    // A span per use case when a tracer is registered.
    const plants: PlantUseCases = tracer ? tracedUseCases(service, tracer) : service;
    const metrics = container.get(TYPES.Metrics, { optional: true });
    const logger = container.get(TYPES.Logger);
    const { rateLimit, authFailureLimit, docs, accessLog, trustProxy, corsOrigins } = config;
    return {
      app: createHttpApp({
        ...{ plants, logger, metrics, tracer, counts, rateLimit, authFailureLimit },
        ...{ docs, accessLog, trustProxy, corsOrigins },
        tokenVerifier: container.get(TYPES.TokenVerifier),
        readiness: container.get(TYPES.ReadinessChecks),
        // Unbound: the storage's own connection, once it is open.
        limiterStore:
          container.get(TYPES.LimiterStore, { optional: true }) ??
          storage.opened.then((opened) => opened.limiterStore ?? IN_PROCESS),
        ...container.get(TYPES.HttpHostOptions),
      }),
      plants,
      ...administrations(container),
      plantStore,
      logger,
      metrics,
      opened,
      startDelivery: async () => delivery.start(await storage.opened),
      requestsInFlight: () => counts.inFlight,
      close: async () => {
        // Closed before the storage opened (e.g. the port was in use): `opened` then rejects with
        // the abort this close caused, which is no failure for a caller that never awaited it.
        opened.catch(() => {});
        await delivery.stop();
        await storage.close();
      },
    };
  } catch (error) {
    await storage.close();
    throw error;
  }
}

/** The service, resolved once its storage is open (a bad URL fails here); `configure` may rebind first. */
export async function buildService(
  config: Config,
  configure?: (container: Container) => void,
): Promise<Service> {
  const container = buildContainer(config);
  configure?.(container);
  const service = await resolveService(container);
  await service.opened;
  return service;
}
