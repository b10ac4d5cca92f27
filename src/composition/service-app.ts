import type { Tracer } from '@opentelemetry/api';
import type { Container } from 'inversify';
import { createHttpApp, type HttpApp } from '../adapters/http/app.js';
import { IN_PROCESS } from '../adapters/limits/limiter-store.js';
import type { PlantUseCases } from '../ports/plant-use-cases.js';
import { TYPES } from './identifiers.js';
import type { OwnParts } from './storage-module.js';

/**
 * The Koa application of the whole contract, over the seams bound in `container`. A file of its
 * own so that the CLI's administration commands, which load the container modules, never load Koa.
 */
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
    corsOrigins: config.corsOrigins,
    ...container.get(TYPES.HttpHostOptions),
  });
}
