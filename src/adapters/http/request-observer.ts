import { randomUUID } from 'node:crypto';
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import type { Context, Middleware } from 'koa';
import type { Logger } from '../../ports/logger.js';
import type { ServiceMetrics } from '../telemetry/service-metrics.js';
import { ERROR_CATALOGUE } from './error-catalogue.js';
import { requestState } from './request-state.js';

/** A well-formed incoming X-Request-Id is kept; anything else is replaced by a fresh UUID. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const STATUS_CLASSES = ['0xx', '1xx', '2xx', '3xx', '4xx', '5xx'];
/** The `method` label: these, or `OTHER` (Node parses some 30 methods; each would be a series). */
const METHOD_LABELS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** The refusals counted in a metric of their own, by the Error body's code. */
const REFUSALS: Record<number, (metrics: ServiceMetrics) => void> = {
  [ERROR_CATALOGUE['rate-limited'].code]: (m) => m.rateLimited.inc({ limit: 'tenant' }),
  [ERROR_CATALOGUE['too-many-auth-failures'].code]: (m) =>
    m.rateLimited.inc({ limit: 'auth_failures' }),
  [ERROR_CATALOGUE['plant-quota-reached'].code]: (m) => m.quotaRefused.inc(),
};

/** Requests received and not answered yet, counted by the observer (metrics, shutdown). */
export type RequestCounts = { inFlight: number };

/** A logger adding `bindings` to each line, for a host's logger that has no `child`. */
function bound(logger: Logger, bindings: object): Logger {
  const at = (level: 'debug' | 'info' | 'warn' | 'error') => (fields: object, message?: string) =>
    logger[level]({ ...bindings, ...fields }, message);
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** The request's logger: each of its lines carries the request id (a child, made on first use). */
export function requestLog(ctx: Context, logger: Logger): Logger {
  const state = requestState(ctx);
  const bindings = { requestId: state.requestId };
  return (state.log ??= logger.child?.(bindings) ?? bound(logger, bindings));
}

export interface ObserverOptions {
  logger: Logger;
  /** One `info` line per request (default true); the logger's level still governs. */
  accessLog?: boolean;
  /** Serves GET /metrics (scope metrics:read) and records requests in them; absent: no /metrics. */
  metrics?: ServiceMetrics | undefined;
  /** A server span per request, child of an incoming W3C traceparent; absent: no span at all. */
  tracer?: Tracer | undefined;
  /** Where the requests in flight are counted (the host reads it at shutdown). */
  counts?: RequestCounts | undefined;
  /** A host's own id of the request, for X-Request-Id and its log lines; undefined: X-Request-Id or a UUID. */
  requestId?: ((ctx: Context) => string | undefined) | undefined;
}

/**
 * Gives each request its id (echoed in `X-Request-Id`), counts it in flight, and once the app has
 * answered writes its access log line, its duration to the metrics, and ends its span. The route
 * is @koa/router's template (`/plants/:id`), never the path: neither log nor label carries an id.
 */
export function requestObserver({
  logger,
  accessLog = true,
  metrics,
  tracer,
  counts = { inFlight: 0 },
  requestId: hostRequestId,
}: ObserverOptions): Middleware {
  const logAccess = accessLog && logger.isLevelEnabled?.('info') !== false;

  return async (ctx, next) => {
    const started = performance.now();
    const incoming = ctx.req.headers['x-request-id'];
    const requestId =
      hostRequestId?.(ctx) ??
      (typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID());
    const state = Object.assign(requestState(ctx), { requestId });
    ctx.set('X-Request-Id', requestId);
    counts.inFlight++;
    const parent = tracer && propagation.extract(ROOT_CONTEXT, ctx.req.headers);
    const options = tracer && {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': ctx.method, 'url.path': ctx.path },
    };
    const span = tracer?.startSpan(ctx.method, options, parent);
    try {
      await (span ? context.with(trace.setSpan(parent!, span), next) : next());
    } finally {
      const route = (ctx as { routerPath?: string }).routerPath;
      if (span) {
        if (route !== undefined) {
          span.updateName(`${ctx.method} ${route}`);
          span.setAttribute('http.route', route);
        }
        span.setAttribute('http.response.status_code', ctx.status);
        if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      }
      counts.inFlight--;
      // Answered before its body arrived in full (401 before the body, a body over the limit):
      // `Connection: close`, so that Node closes the connection once the answer is sent instead of
      // draining a body of any size to keep it alive.
      if (!ctx.req.complete) ctx.set('Connection', 'close');
      const ms = performance.now() - started;
      const code = state.errorCode;
      if (metrics !== undefined) {
        const method = METHOD_LABELS.has(ctx.method) ? ctx.method : 'OTHER';
        const statusClass = STATUS_CLASSES[Math.floor(ctx.status / 100)] ?? 'other';
        metrics.requestDuration
          .labels(method, route ?? 'unmatched', statusClass)
          .observe(ms / 1000);
        if (code !== undefined) REFUSALS[code]?.(metrics);
      }
      if (logAccess) {
        logger.info(
          {
            requestId: state.requestId,
            method: ctx.method,
            route,
            status: ctx.status,
            durationMs: Math.round(ms * 1000) / 1000,
            size: ctx.response.length ?? 0,
            tenant: state.caller?.tenant,
            // The client's address: the peer's, or X-Forwarded-For's under PLANT_STORE_TRUST_PROXY.
            ip: ctx.ip,
            error: code,
          },
          'request',
        );
      }
    }
  };
}
