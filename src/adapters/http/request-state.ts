import type { Caller } from '../../domain/caller.js';
import type { Logger } from '../../ports/logger.js';

/**
 * What the library keeps for one request, under a key of its own on `ctx.state`: a host's own
 * `ctx.state` keys (`requestId`, `log`, `user`, ...) are neither read nor overwritten.
 */
interface RequestState {
  requestId: string; // the host's (HttpAppOptions.requestId), a good X-Request-Id, or a UUID
  caller?: Caller; // set by bearer-auth.ts once it accepted the token
  errorCode?: number; // the Error body's code, set by the error handler
  log?: Logger; // the request's logger (its lines carry the id), made on first use
}

const REQUEST_STATE = Symbol('plant-store request');

/** The library's state of this request (the request observer creates it first). */
export function requestState(ctx: { state: unknown }): RequestState {
  const state = ctx.state as Record<symbol, RequestState | undefined>;
  return (state[REQUEST_STATE] ??= { requestId: '' });
}

/** The caller bearer-auth.ts accepted; routes behind `authorize` always have one. */
export const callerOf = (ctx: { state: unknown }): Caller => requestState(ctx).caller!;

/**
 * The path prefix the app is mounted under (koa-mount sets `ctx.mountPath`), or '' at the root.
 * It comes from the host's code, never from a request, so links and the served document may use it.
 */
export const mountPrefix = (mountPath: unknown): string =>
  typeof mountPath === 'string' && mountPath !== '/' ? mountPath : '';
