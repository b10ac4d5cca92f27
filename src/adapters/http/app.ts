import type { Tracer } from '@opentelemetry/api';
import Koa from 'koa';
import { stringify } from 'lossless-json';
import type { Logger } from '../../ports/logger.js';
import type { PlantStore } from '../../ports/plant-store.js';
import type { PlantUseCases } from '../../ports/plant-use-cases.js';
import type { TokenStore } from '../../ports/token-store.js';
import type { TokenVerifier } from '../../ports/token-verifier.js';
import { AuthFailureBudget } from './auth-failure-budget.js';
import { docsRoutes } from './docs/docs-routes.js';
import { problem } from './error-catalogue.js';
import { errorHandler } from './error-handler.js';
import { mountPrefix } from './mount-prefix.js';
import { openApiDocument } from './docs/openapi.js';
import { plantRoutes } from './plant-routes.js';
import { tenantRateLimit } from './rate-limit.js';
import type { ServiceMetrics } from '../telemetry/service-metrics.js';
import { metricsRoutes } from './operations/metrics-route.js';
import { readiness } from './operations/readiness.js';
import { requestObserver, type RequestCounts } from './request-observer.js';
import { answerJson } from './json-answer.js';
import { trustProxy, type TrustProxy } from './trusted-proxy.js';
import { Router } from '@koa/router';

/** The Koa application; callers need only its `callback()`. */
export type HttpApp = Koa;

export interface HttpAppOptions {
  plants: PlantUseCases;
  tokens: TokenVerifier;
  /** Readiness asks the store. */
  store: Pick<PlantStore, 'ping'>;
  /** Readiness asks the token store too, when given. */
  tokenStore?: Pick<TokenStore, 'ping'> | undefined;
  logger: Logger;
  /** Requests a second per tenant; 0 or absent turns limiting off. */
  rateLimit?: number;
  /** Failed authentications a second per client address; 0 or absent turns the budget off. */
  authFailureLimit?: number;
  /** Serves the interactive API reference at /docs (default true); false answers 404 there. */
  docs?: boolean;
  /** One `info` line per request (default true). */
  accessLog?: boolean;
  /** Serves GET /metrics (scope metrics:read) and records requests in them; absent: no /metrics. */
  metrics?: ServiceMetrics | undefined;
  /** Server spans per request; absent: none. */
  tracer?: Tracer | undefined;
  /** Where the requests in flight are counted (the host reads it at shutdown). */
  counts?: RequestCounts;
  /**
   * A host's own id of the request (e.g. from its context), used in X-Request-Id and every log
   * line of the request; undefined (or absent) takes a well-formed X-Request-Id or a fresh UUID.
   */
  requestId?: ((ctx: Koa.Context) => string | undefined) | undefined;
  /** Whose X-Forwarded-For names the client for the per-address rules; absent: nobody's. */
  trustProxy?: TrustProxy | undefined;
}

const documents = new Map<string, string>();

/**
 * The served document; mounted under a prefix (koa-mount sets `ctx.mountPath`), its `servers` names
 * that prefix, so that generated clients and the reference's try-it reach the operations. Built once
 * per prefix: prefixes come from the host's code, never from a request.
 */
function openApiJson(mountPath: unknown): string {
  const prefix = mountPrefix(mountPath);
  let json = documents.get(prefix);
  if (json === undefined) {
    const document =
      prefix === '' ? openApiDocument : { ...openApiDocument, servers: [{ url: prefix }] };
    json = stringify(document) ?? '{}';
    documents.set(prefix, json);
  }
  return json;
}

/** Open endpoints: the description, health and readiness. */
function openRoutes(
  store: Pick<PlantStore, 'ping'>,
  tokenStore: Pick<TokenStore, 'ping'> | undefined,
): Router {
  const router = new Router();
  router.get('/openapi.json', (ctx) => answerJson(ctx, 200, openApiJson(ctx.mountPath)));
  router.get('/healthz', (ctx) => answerJson(ctx, 200, '{"status":"ok"}'));
  router.get('/readyz', readiness({ plants: store, tokens: tokenStore }));
  return router;
}

/** The Koa application of the whole contract; mount it with `app.callback()`. */
export function createHttpApp({
  plants,
  tokens,
  store,
  tokenStore,
  logger,
  rateLimit = 0,
  authFailureLimit = 0,
  docs = true,
  accessLog = true,
  metrics,
  tracer,
  counts,
  requestId,
  trustProxy: trust,
}: HttpAppOptions): HttpApp {
  const app = new Koa();
  trustProxy(app, trust);
  const limits = {
    admit: rateLimit > 0 ? tenantRateLimit(rateLimit) : undefined,
    failures: authFailureLimit > 0 ? new AuthFailureBudget(authFailureLimit) : undefined,
  };
  const routers = [plantRoutes({ plants, tokens, limits }), openRoutes(store, tokenStore)];
  if (docs) routers.push(docsRoutes());
  if (metrics?.route === true) routers.push(metricsRoutes(metrics, tokens, limits));

  app.use(
    requestObserver({ logger, accessLog, metrics, tracer, requestId, ...(counts && { counts }) }),
  );
  app.use(errorHandler(logger));
  for (const router of routers) app.use(router.routes());
  // Reached only when no route took the request: 405 if the path exists with other methods, else 404.
  app.use(async (ctx) => {
    const allowed = new Set(
      routers.flatMap((router) =>
        router.match(ctx.path, ctx.method).path.flatMap((layer) => layer.methods),
      ),
    );
    if (allowed.size > 0) {
      const allow = [...allowed].join(', ');
      throw problem('method-not-allowed', { method: ctx.method, path: ctx.path, allow });
    }
    throw problem('no-route', ctx.path);
  });
  app.on('error', (err: unknown) => logger.debug({ err }, 'connection error'));
  return app;
}
