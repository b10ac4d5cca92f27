import type { Tracer } from '@opentelemetry/api';
import { ContainerModule } from 'inversify';
import { PlantService } from '../application/plant-service.js';
import type { Config } from '../config/index.js';
import { CompositeTokenVerifier } from '../adapters/auth/composite-token-verifier.js';
import { JwtTokenVerifier } from '../adapters/auth/jwt-token-verifier.js';
import { ManagedTokenVerifier } from '../adapters/auth/managed-token-verifier.js';
import { StaticTokenVerifier } from '../adapters/auth/static-token-verifier.js';
import { createLogger } from '../adapters/logger.js';
import type { ServiceMetrics } from '../adapters/telemetry/service-metrics.js';
import { tracedUseCases } from '../adapters/telemetry/traced-use-cases.js';
import type { Logger } from '../ports/logger.js';
import type { PlantEvents } from '../ports/plant-events.js';
import type { PlantStore } from '../ports/plant-store.js';
import type { PlantUseCases } from '../ports/plant-use-cases.js';
import type { TokenStore } from '../ports/token-store.js';
import { TYPES } from './identifiers.js';

/** The logger (pino on stdout at LOG_LEVEL), the clock, and what a host adds to the HTTP app. */
export const baseModule = (config: Config): ContainerModule =>
  new ContainerModule(({ bind }) => {
    bind(TYPES.Logger).toResolvedValue(() => createLogger(config.logLevel));
    bind(TYPES.Clock).toConstantValue(() => new Date());
    bind(TYPES.HttpHostOptions).toConstantValue({});
  });

/** Bearer tokens: configured (static), managed (the token store, cached) and JWT (when configured). */
export const authModule = (config: Config): ContainerModule =>
  new ContainerModule(({ bind }) => {
    bind(TYPES.TokenVerifier).toResolvedValue(
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
  });

/** The plant use cases over the store bound, with a span per use case when a tracer is registered. */
export function plantUseCases(
  store: PlantStore,
  events: PlantEvents | undefined,
  tracer: Tracer | undefined,
): PlantUseCases {
  const plants: PlantUseCases = new PlantService(store, events);
  return tracer ? tracedUseCases(plants, tracer) : plants;
}
