import 'reflect-metadata';
import { Container, type ServiceIdentifier } from 'inversify';
import { PlantService } from '../domain/plant-service.js';
import type { Logger } from '../ports/logger.js';
import type { PlantStore } from '../ports/plant-store.js';
import type { PlantUseCases } from '../ports/plant-use-cases.js';
import type { TokenAdministration } from '../ports/token-administration.js';
import type { TokenStore } from '../ports/token-store.js';
import type { TokenVerifier } from '../ports/token-verifier.js';
import { CompositeTokenVerifier } from '../adapters/auth/composite-token-verifier.js';
import { JwtTokenVerifier } from '../adapters/auth/jwt-token-verifier.js';
import { ManagedTokenVerifier } from '../adapters/auth/managed-token-verifier.js';
import { StaticTokenVerifier } from '../adapters/auth/static-token-verifier.js';
import { TokenAdministrator } from '../adapters/auth/token-administrator.js';
import type { Config } from '../adapters/config/index.js';
import { createHttpApp, type HttpApp } from '../adapters/http/app.js';
import type { RequestCounts } from '../adapters/http/request-observer.js';
import { createLogger } from '../adapters/logger.js';
import { outageReporters, type OutageReporters } from '../adapters/storage/outage-reporter.js';
import { observedStore } from '../adapters/telemetry/observed-store.js';
import { ServiceMetrics } from '../adapters/telemetry/service-metrics.js';
import { tracedUseCases } from '../adapters/telemetry/traced-use-cases.js';
import { activeTracer } from '../adapters/telemetry/tracing.js';
import type { Tracer } from '@opentelemetry/api';
import { openingStorage, type OpeningStorage } from '../adapters/storage/opening-storage.js';
import { openStorage } from '../adapters/storage/registry.js';
import { webhookDelivery, type WebhookDelivery } from './webhook-delivery.js';

/** The service, composed: what a host program uses. */
export interface Service {
  /** The HTTP interface: mount `app.callback()` on any node:http server. */
  app: HttpApp;
  /** The core's use cases, for callers without HTTP. */
  plants: PlantUseCases;
  /** Issue, list and revoke managed tokens in the service's token store. */
  tokens: TokenAdministration;
  /** The plant store behind the use cases. */
  store: PlantStore;
  logger: Logger;
  /** Webhooks (docs/webhooks.md); absent when the plant store was given as an override. */
  webhooks?: WebhookDelivery;
  /** The Prometheus metrics served at /metrics; absent when PLANT_STORE_METRICS is off. */
  metrics?: ServiceMetrics;
  /** Requests received and not answered yet. */
  requestsInFlight(): number;
  /** Closes the storage the service opened (stores passed as overrides stay the caller's). */
  close(): Promise<void>;
}

/** Replacements for the defaults, e.g. a host service's logger, token verifier or stores. */
export type Overrides = Partial<{
  logger: Logger;
  /** Replaces the whole verifier (static, managed and JWT tokens). */
  verifier: TokenVerifier;
  store: PlantStore;
  tokenStore: TokenStore;
}>;

// Identifiers of what the container provides; private to the composition.
const ids = {
  Logger: Symbol('Logger') as ServiceIdentifier<Logger>,
  Storage: Symbol('Storage') as ServiceIdentifier<OpeningStorage>,
  TokenVerifier: Symbol('TokenVerifier') as ServiceIdentifier<TokenVerifier>,
  PlantUseCases: Symbol('PlantUseCases') as ServiceIdentifier<PlantUseCases>,
  TokenAdministration: Symbol('TokenAdministration') as ServiceIdentifier<TokenAdministration>,
  HttpApp: Symbol('HttpApp') as ServiceIdentifier<HttpApp>,
  Webhooks: Symbol('Webhooks') as ServiceIdentifier<WebhookDelivery | undefined>,
  Telemetry: Symbol('Telemetry') as ServiceIdentifier<Telemetry>,
};

/** What watches the service: request counts, metrics, the tracer, the stores' outage reporters. */
interface Telemetry {
  counts: RequestCounts;
  metrics: ServiceMetrics | undefined;
  tracer: Tracer | undefined;
  outages: OutageReporters;
}

function telemetry(config: Config, logger: Logger): Telemetry {
  const counts = { inFlight: 0 };
  const metrics = config.metrics === false ? undefined : new ServiceMetrics(() => counts.inFlight);
  return {
    counts,
    metrics,
    tracer: activeTracer(),
    outages: outageReporters(logger, metrics?.storeEvent),
  };
}

const PLANT_STORE_CALLS = ['insert', 'list', 'delete', 'ping'] as const;
const TOKEN_STORE_CALLS = ['create', 'find', 'list', 'revoke', 'markUsed', 'ping'] as const;

/** The storage with both stores timed, traced and reported on (the decorators of every adapter). */
function observed(storage: OpeningStorage, adapter: string, watch: Telemetry): OpeningStorage {
  const { metrics, tracer, outages } = watch;
  return {
    ...storage,
    plants: observedStore(storage.plants, PLANT_STORE_CALLS, {
      adapter,
      metrics,
      tracer,
      outages: outages.plants,
    }),
    tokens: observedStore(storage.tokens, TOKEN_STORE_CALLS, {
      adapter,
      metrics,
      tracer,
      outages: outages.tokens,
    }),
  };
}

/** The storage to build on: opened from the configuration unless both stores are given. */
function storageFor(
  config: Config,
  overrides: Overrides,
  logger: Logger,
  outages: OutageReporters,
): OpeningStorage {
  const { store, tokenStore } = overrides;
  if (store && tokenStore) {
    return { plants: store, tokens: tokenStore, opened: Promise.resolve(), close: async () => {} };
  }
  const opening = openingStorage((signal) => openStorage(config, { logger, signal, outages }));
  return {
    plants: store ?? opening.plants,
    tokens: tokenStore ?? opening.tokens,
    ...(opening.webhooks && { webhooks: opening.webhooks }),
    ...(opening.outbox && { outbox: opening.outbox }),
    opened: opening.opened,
    close: () => opening.close(),
  };
}

/** Binds every port to its adapter for the configuration. */
function compose(config: Config, overrides: Overrides): Container {
  const container = new Container({ defaultScope: 'Singleton' });
  container.bind(ids.Logger).toConstantValue(overrides.logger ?? createLogger(config.logLevel));
  container
    .bind(ids.Telemetry)
    .toResolvedValue((logger: Logger) => telemetry(config, logger), [ids.Logger]);
  container.bind(ids.Storage).toResolvedValue(
    (logger: Logger, watch: Telemetry) => {
      const adapter = overrides.store ? 'custom' : config.storage.kind;
      return observed(storageFor(config, overrides, logger, watch.outages), adapter, watch);
    },
    [ids.Logger, ids.Telemetry],
  );
  container.bind(ids.TokenVerifier).toResolvedValue(
    (storage: OpeningStorage, logger: Logger, { metrics }: Telemetry) =>
      overrides.verifier ??
      new CompositeTokenVerifier(
        {
          static: new StaticTokenVerifier(config.tokens),
          managed: new ManagedTokenVerifier(storage.tokens, {
            logger,
            ttlMs: config.tokenCacheSeconds * 1000,
          }),
          jwt: config.jwt && new JwtTokenVerifier(config.jwt, { logger }),
        },
        metrics && ((kind, result) => metrics.tokenVerifications.series(kind, result).inc()),
      ),
    [ids.Storage, ids.Logger, ids.Telemetry],
  );
  container
    .bind(ids.Webhooks)
    .toResolvedValue(
      (storage: OpeningStorage, logger: Logger) =>
        overrides.store ? undefined : webhookDelivery(config, storage, logger),
      [ids.Storage, ids.Logger],
    );
  container.bind(ids.PlantUseCases).toResolvedValue(
    (storage: OpeningStorage, webhooks: WebhookDelivery | undefined, { tracer }: Telemetry) => {
      const plants = new PlantService(webhooks?.plants ?? storage.plants);
      return tracer ? tracedUseCases(plants, tracer) : plants;
    },
    [ids.Storage, ids.Webhooks, ids.Telemetry],
  );
  container
    .bind(ids.TokenAdministration)
    .toResolvedValue(
      (storage: OpeningStorage) => new TokenAdministrator(storage.tokens),
      [ids.Storage],
    );
  container.bind(ids.HttpApp).toResolvedValue(
    (
      plants: PlantUseCases,
      tokens: TokenVerifier,
      storage: OpeningStorage,
      logger: Logger,
      { counts, metrics, tracer }: Telemetry,
    ) =>
      createHttpApp({
        plants,
        tokens,
        store: storage.plants,
        tokenStore: storage.tokens,
        logger,
        rateLimit: config.rateLimit,
        authFailureLimit: config.authFailureLimit ?? 0,
        docs: config.docs,
        accessLog: config.accessLog ?? true,
        metrics,
        tracer,
        counts,
        trustProxy: config.trustProxy,
      }),
    [ids.PlantUseCases, ids.TokenVerifier, ids.Storage, ids.Logger, ids.Telemetry],
  );
  return container;
}

/** A service whose storage may still be opening: its stores answer storage-unavailable until then. */
export interface OpeningService extends Service {
  /** Resolves once the storage is open; rejects with why it cannot be (the service is then closed). */
  readonly opened: Promise<void>;
}

/**
 * Composes the service at once and opens the configured storage in the background, waiting up to
 * PLANT_STORE_STARTUP_TIMEOUT for a store that is not up yet: for a host that serves health
 * before the stores are open (`plant-store serve`). inversify stays in here.
 */
export async function composeService(
  config: Config,
  overrides: Overrides = {},
): Promise<OpeningService> {
  const container = compose(config, overrides);
  const storage = await container.getAsync(ids.Storage);
  try {
    const webhooks = await container.getAsync(ids.Webhooks);
    const { counts, metrics } = await container.getAsync(ids.Telemetry);
    return {
      ...(webhooks && { webhooks }),
      ...(metrics && { metrics }),
      requestsInFlight: () => counts.inFlight,
      app: await container.getAsync(ids.HttpApp),
      plants: await container.getAsync(ids.PlantUseCases),
      tokens: await container.getAsync(ids.TokenAdministration),
      store: storage.plants,
      logger: container.get(ids.Logger),
      opened: storage.opened.catch(async (error: unknown) => {
        await storage.close();
        throw error;
      }),
      close: async () => {
        await webhooks?.stop();
        await storage.close();
      },
    };
  } catch (error) {
    await storage.close();
    throw error;
  }
}

/**
 * The composition root of the service: resolves once the configured storage is open (so that a
 * bad URL fails start-up, not the first request), waiting up to PLANT_STORE_STARTUP_TIMEOUT for
 * a store that is still starting.
 */
export async function buildService(config: Config, overrides: Overrides = {}): Promise<Service> {
  const { opened, ...service } = await composeService(config, overrides);
  await opened;
  return service;
}
