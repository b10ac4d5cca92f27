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
import { accessLineWriter } from '../logger.js';
import type { ServiceMetrics } from '../telemetry/service-metrics.js';
import { ERROR_CATALOGUE } from './error-catalogue.js';

/** A well-formed incoming X-Request-Id is kept; anything else is replaced by a fresh UUID. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const STATUS_CLASSES = ['0xx', '1xx', '2xx', '3xx', '4xx', '5xx'];
const RATE_LIMITED = ERROR_CATALOGUE['rate-limited'].code;
const AUTH_FAILURES_LIMITED = ERROR_CATALOGUE['too-many-auth-failures'].code;
const QUOTA_REACHED = ERROR_CATALOGUE['plant-quota-reached'].code;

/** Requests received and not answered yet, counted by the observer (metrics, shutdown). */
export interface RequestCounts {
  inFlight: number;
}

/** What the observer and the error handler keep on `ctx.state`. */
export interface ObservedState {
  requestId?: string;
  /** The Error body's code, set by the error handler. */
  errorCode?: number;
  /** The body's size in bytes, set by send-json.ts (Koa knows the others). */
  size?: number;
  caller?: { tenant: string };
  log?: Logger;
}

/** A logger adding `bindings` to each line, for a host's logger that has no `child`. */
function bound(logger: Logger, bindings: object): Logger {
  return {
    debug: (fields, message) => logger.debug({ ...bindings, ...fields }, message),
    info: (fields, message) => logger.info({ ...bindings, ...fields }, message),
    warn: (fields, message) => logger.warn({ ...bindings, ...fields }, message),
    error: (fields, message) => logger.error({ ...bindings, ...fields }, message),
  };
}

/** The request's logger: each of its lines carries the request id (a pino child, made on first use). */
export function requestLog(ctx: Context, logger: Logger): Logger {
  const state = ctx.state as ObservedState;
  const bindings = { requestId: (state.requestId ??= randomUUID()) };
  return (state.log ??= logger.child?.(bindings) ?? bound(logger, bindings));
}

export interface ObserverOptions {
  logger: Logger;
  /** One `info` line per request (default true); LOG_LEVEL still governs. */
  accessLog?: boolean;
  metrics?: ServiceMetrics | undefined;
  /** A server span per request, child of an incoming W3C traceparent; absent: no span at all. */
  tracer?: Tracer | undefined;
  counts?: RequestCounts;
}

/**
 * Outermost middleware: gives each request its id (echoed in `X-Request-Id`: by send-json.ts in
 * the head it writes at once, or here before Koa answers), counts it in flight, and once answered
 * writes its access log line, its duration to the metrics and ends its server span (and, when
 * its body was not read in full, asks Node to close the connection). The route is
 * @koa/router's template (`/plants/:id`), never the path, so that neither the log's `route` nor a
 * label carries an id. Not async, and one closure per request: it wraps every request.
 */
export function requestObserver({
  logger,
  accessLog = true,
  metrics,
  tracer,
  counts = { inFlight: 0 },
}: ObserverOptions): Middleware {
  const writeAccess =
    accessLog && logger.isLevelEnabled?.('info') !== false ? accessLineWriter(logger) : undefined;

  const finish = (ctx: Context, started: number): void => {
    counts.inFlight--;
    // Answered before its body arrived in full (401 before the body, a body on GET or DELETE, a
    // body over the limit): `Connection: close`, so that Node closes the connection once the
    // answer is sent instead of draining a body of any size to keep it alive. Koa answers after
    // this; send-json.ts, which writes at once, sets the header itself.
    if (!ctx.req.complete) ctx.set('Connection', 'close');
    const state = ctx.state as ObservedState;
    // send-json.ts wrote its head with the id already; Koa answers the rest after this.
    if (ctx.respond !== false) ctx.res.setHeader('X-Request-Id', state.requestId!);
    const ms = performance.now() - started;
    const { status } = ctx;
    const route = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute as string | undefined;
    const code = state.errorCode;
    if (metrics !== undefined) {
      metrics.requestDuration
        .series(ctx.method, route ?? 'unmatched', STATUS_CLASSES[(status / 100) | 0] ?? 'other')
        .observe(ms / 1000);
      if (code === RATE_LIMITED) metrics.rateLimited.inc({ limit: 'tenant' });
      else if (code === AUTH_FAILURES_LIMITED) metrics.rateLimited.inc({ limit: 'auth_failures' });
      else if (code === QUOTA_REACHED) metrics.quotaRefused.inc();
    }
    if (writeAccess !== undefined) {
      writeAccess({
        requestId: state.requestId ?? '',
        method: ctx.method,
        route,
        status,
        durationMs: Math.round(ms * 1000) / 1000,
        size: state.size ?? ctx.response.length ?? 0,
        tenant: state.caller?.tenant,
        error: code,
      });
    }
  };

  const traced = (ctx: Context, next: () => Promise<unknown>, started: number, tracer: Tracer) => {
    const parent = propagation.extract(ROOT_CONTEXT, ctx.req.headers);
    const span = tracer.startSpan(
      ctx.method,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': ctx.method, 'url.path': ctx.path },
      },
      parent,
    );
    const done = (): void => {
      const route = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
      if (typeof route === 'string') {
        span.updateName(`${ctx.method} ${route}`);
        span.setAttribute('http.route', route);
      }
      span.setAttribute('http.response.status_code', ctx.status);
      if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      finish(ctx, started);
    };
    return context.with(trace.setSpan(parent, span), next).then(done, (error: unknown) => {
      done();
      throw error;
    });
  };

  return (ctx, next) => {
    const started = performance.now();
    const incoming = ctx.req.headers['x-request-id'];
    const requestId =
      typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    (ctx.state as ObservedState).requestId = requestId;
    counts.inFlight++;
    if (tracer !== undefined) return traced(ctx, next, started, tracer);
    return next().then(
      () => finish(ctx, started),
      (error: unknown) => {
        finish(ctx, started);
        throw error;
      },
    );
  };
}
