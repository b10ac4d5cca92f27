import { ContainerModule } from 'inversify';
import { CompositeTokenVerifier } from '../adapters/auth/composite-token-verifier.js';
import { JwtTokenVerifier } from '../adapters/auth/jwt-token-verifier.js';
import { ManagedTokenVerifier } from '../adapters/auth/managed-token-verifier.js';
import { StaticTokenVerifier } from '../adapters/auth/static-token-verifier.js';
import type { ServiceMetrics } from '../adapters/telemetry/service-metrics.js';
import type { Config } from '../config/index.js';
import type { Logger } from '../ports/logger.js';
import type { TokenStore } from '../ports/token-store.js';
import { optional, TYPES } from './identifiers.js';

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
      [TYPES.TokenStore, TYPES.Logger, optional(TYPES.Metrics)],
    );
  });
