import type { Middleware } from 'koa';
import { problem, toProblem } from '../error-catalogue.js';
import { serverOf } from '../server/node-internals.js';

/**
 * One thing /readyz asks: `name` is how its body's `failing` names it; `ping` resolves when it can
 * serve and rejects with a PlantError (`storage-unavailable`, `storage-refuses-writes`) when not.
 * The container binds the plant store's and the token store's (TYPES.ReadinessChecks).
 */
export interface ReadinessCheck {
  readonly name: string;
  ping(): Promise<void>;
}

/**
 * The store's ping, shared: callers while one runs, and within a second after it settled, get its
 * outcome. An unauthenticated /readyz then costs each store at most one look a second, however
 * many ask, at the price of an answer up to 1 s old.
 */
function sharedPing(store: ReadinessCheck): () => Promise<void> {
  let outcome: Promise<void> | undefined;
  let freshUntil = Infinity;
  return () => {
    if (outcome !== undefined && Date.now() < freshUntil) return outcome;
    freshUntil = Infinity;
    outcome = Promise.resolve()
      .then(() => store.ping())
      .finally(() => (freshUntil = Date.now() + 1000));
    // Callers handle the outcome; a shared rejection kept for later ones is no unhandled one.
    outcome.catch(() => {});
    return outcome;
  };
}

/**
 * GET /readyz: 503 50304 (`failing` empty) once shutdown has begun; 200 while every check passes;
 * else 503 with the first failing check's Error body (50301 unreachable, 50303 refusing writes)
 * and `failing`, the names of the checks that fail. An unexpected failure goes on to the error
 * handler (500).
 */
export function readiness(checks: readonly ReadinessCheck[]): Middleware {
  const pings = checks.map(sharedPing);
  return async function getReadiness(ctx) {
    // Shutdown has begun (server.close()): read from the connection, which node:net gives `server`.
    const stopping = serverOf(ctx.req.socket)?.listening === false;
    const results = stopping ? [] : await Promise.allSettled(pings.map((ping) => ping()));
    const failed = (result?: PromiseSettledResult<void>): result is PromiseRejectedResult =>
      result?.status === 'rejected';
    const failing = checks.filter((_, i) => failed(results[i])).map((check) => check.name);
    if (!stopping && failing.length === 0) return void (ctx.body = { status: 'ready' });
    const first: unknown = results.find(failed)?.reason;
    const refusal = stopping ? problem('shutting-down') : toProblem(first);
    if (refusal?.status !== 503) throw first;
    ctx.status = 503;
    ctx.set(refusal.headers);
    ctx.body = refusal.body({ failing });
  };
}
