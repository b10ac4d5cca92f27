import { ContainerModule } from 'inversify';
import type { Config } from '../config/index.js';
import { createHttpApp } from '../adapters/http/app.js';
import { optional, TYPES } from './identifiers.js';

/**
 * The Koa application of the whole contract, and what its /readyz asks. Its own module so that the
 * CLI's administration commands, which load the other modules, never load Koa.
 */
export const httpModule = (config: Config): ContainerModule =>
  new ContainerModule(({ bind }) => {
    bind(TYPES.HttpHostOptions).toConstantValue({});
    // The stores bound (an embedder's too); an embedder rebinds the list to add or drop a check.
    bind(TYPES.ReadinessChecks).toResolvedValue(
      (plants, tokens) => [
        { name: 'plants', ping: () => plants.ping() },
        { name: 'tokens', ping: () => tokens.ping() },
      ],
      [TYPES.PlantStore, TYPES.TokenStore],
    );
    bind(TYPES.HttpApp).toResolvedValue(
      (plants, tokenVerifier, readiness, logger, counts, host, limiterStore, metrics, tracer) =>
        createHttpApp({
          plants,
          tokenVerifier,
          readiness,
          logger,
          rateLimit: config.rateLimit,
          authFailureLimit: config.authFailureLimit,
          limiterStore: limiterStore(),
          docs: config.docs,
          accessLog: config.accessLog,
          metrics,
          tracer,
          counts,
          trustProxy: config.trustProxy,
          ...host,
        }),
      [
        TYPES.PlantUseCases,
        TYPES.TokenVerifier,
        TYPES.ReadinessChecks,
        TYPES.Logger,
        TYPES.RequestCounts,
        TYPES.HttpHostOptions,
        TYPES.LimiterStore,
        optional(TYPES.Metrics),
        optional(TYPES.Tracer),
      ],
    );
  });
