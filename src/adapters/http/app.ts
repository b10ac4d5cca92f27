import Koa from 'koa';
import { OPERATION_SCOPES } from '../../domain/caller.js';
import type { PlantUseCases } from '../../ports/plant-use-cases.js';
import type { TokenVerifier } from '../../ports/token-verifier.js';
import { authorize, type Authorize } from './bearer-auth.js';
import { corsFor } from './cors.js';
import { docsRoutes } from './docs/docs-routes.js';
import { problem } from './error-catalogue.js';
import { errorHandler } from './error-handler.js';
import { plantRoutes } from './plant-routes.js';
import { KeyedLimiter, type LimiterWatch } from '../limits/keyed-limiter.js';
import type { LimiterStore } from '../limits/limiter-store.js';
import { operationRoutes } from './operations/routes.js';
import type { ReadinessCheck } from './operations/readiness.js';
import { requestObserver, type ObserverOptions } from './request-observer.js';
import { trustProxy, type TrustProxy } from './trusted-proxy.js';

/** The Koa application; callers need only its `callback()`. */
export type HttpApp = Koa;

/** The request observer's options (logger, accessLog, metrics, tracer, counts, requestId), and: */
export interface HttpAppOptions extends ObserverOptions {
  plants: PlantUseCases;
  tokenVerifier: TokenVerifier;
  /** What GET /readyz asks, by the name its `failing` gives each (the container's: `plants`, `tokens`). */
  readiness: readonly ReadinessCheck[];
  /** Requests a second per tenant; 0 or absent turns limiting off. */
  rateLimit?: number;
  /** Failed authentications a second per client address; 0 or absent turns the budget off. */
  authFailureLimit?: number;
  /** Where both limits count (the storage's, shared with every process on it); absent: this process. */
  limiterStore?: LimiterStore | Promise<LimiterStore> | undefined;
  /** Serves the interactive API reference at /docs (default true); false answers 404 there. */
  docs?: boolean;
  /** Whose X-Forwarded-For names the client for the per-address rules; absent: nobody's. */
  trustProxy?: TrustProxy | undefined;
  /** The origins whose pages may call the service from a browser (`*`: any); absent: no CORS. */
  corsOrigins?: '*' | readonly string[] | undefined;
}

/** The Koa application of the whole contract; mount it with `app.callback()`. */
export function createHttpApp(options: HttpAppOptions): HttpApp {
  const { plants, tokenVerifier, readiness, logger, rateLimit = 0, authFailureLimit = 0 } = options;
  const { limiterStore, docs = true, metrics, trustProxy: trust, corsOrigins } = options;
  const app = new Koa();
  // A log line when a limit's store stops answering and when it answers again; a count of each
  // decision made meanwhile.
  const watch: LimiterWatch = {
    fallback(limit, first) {
      metrics?.limiterFallbacks.inc({ limit });
      const message = 'the limiter store does not answer; limiting in this process meanwhile';
      if (first) logger.warn({ limit }, message);
    },
    recovered: (limit) =>
      logger.info({ limit }, 'the limiter store answers again; limits are shared again'),
  };
  const limiter = (name: string, points: number) =>
    points > 0 ? new KeyedLimiter({ name, points, store: limiterStore, watch }) : undefined;
  const limits = {
    tenants: limiter('tenant', rateLimit),
    failures: limiter('auth_failures', authFailureLimit),
  };
  // Each operation authorizes first (bearer-auth.ts), with the scope of the domain's table.
  const authorized: Authorize = (operation) =>
    authorize(tokenVerifier, OPERATION_SCOPES[operation], limits);
  const routers = [
    plantRoutes(plants, authorized),
    operationRoutes(readiness, metrics, authorized),
  ];
  if (docs) routers.push(docsRoutes());

  // The middleware in the order a request meets it. The client's address behind a trusted proxy,
  // for the per-address rules and the log:
  const proxied = trust && trustProxy(app, trust);
  if (proxied) app.use(proxied);
  // The access log, metrics, span and request id, around everything that may fail:
  app.use(requestObserver(options));
  // CORS before anything that may refuse, so that every answer, errors included, carries its
  // headers, and a preflight is answered before the routes (which would answer OPTIONS 405):
  if (corsOrigins !== undefined) app.use(corsFor(corsOrigins));
  // Any failure below becomes the contract's Error body:
  app.use(errorHandler(logger));
  // The operations; each /plants route authorizes, then reads its body (plant-routes.ts):
  for (const router of routers) app.use(router.routes());
  // No route took it: 405 if the path exists with other methods, else 404.
  app.use(async (ctx) => {
    const layers = routers.flatMap((router) => router.match(ctx.path, ctx.method).path);
    const allowed = new Set(layers.flatMap((layer) => layer.methods));
    if (allowed.size === 0) throw problem('no-route', ctx.path);
    const allow = [...allowed].join(', ');
    throw problem('method-not-allowed', { method: ctx.method, path: ctx.path, allow });
  });
  app.on('error', (err: unknown) => logger.debug({ err }, 'connection error'));
  return app;
}
