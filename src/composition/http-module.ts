import type { Tracer } from '@opentelemetry/api';
import { ContainerModule, type Container } from 'inversify';
import { createHttpApp, type HttpApp } from '../adapters/http/app.js';
import { IN_PROCESS } from '../adapters/limits/limiter-store.js';
import type { PlantUseCases } from '../ports/plant-use-cases.js';
import { TYPES } from './identifiers.js';
import type { OwnParts } from './storage-module.js';

/**
 * What a host adds to the Koa application, and what its /readyz asks. Its own module so that the
 * CLI's administration commands, which load the other modules, never load Koa.
 */
export const httpModule = (): ContainerModule =>
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
  });

/** The Koa application of the whole contract, over the seams bound in `container`. */
export function serviceApp(
  container: Container,
  { config, storage, counts }: OwnParts,
  plants: PlantUseCases,
  tracer: Tracer | undefined,
): HttpApp {
  return createHttpApp({
    plants,
    tokenVerifier: container.get(TYPES.TokenVerifier),
    readiness: container.get(TYPES.ReadinessChecks),
    logger: container.get(TYPES.Logger),
    rateLimit: config.rateLimit,
    authFailureLimit: config.authFailureLimit,
    // Unbound: the storage's own connection, once it is open.
    limiterStore:
      container.get(TYPES.LimiterStore, { optional: true }) ??
      storage.opened.then((opened) => opened.limiterStore ?? IN_PROCESS),
    docs: config.docs,
    accessLog: config.accessLog,
    metrics: container.get(TYPES.Metrics, { optional: true }),
    tracer,
    counts,
    trustProxy: config.trustProxy,
    ...container.get(TYPES.HttpHostOptions),
  });
}
