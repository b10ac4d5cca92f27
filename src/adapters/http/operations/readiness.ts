import type { Middleware } from 'koa';
import { problem } from '../error-catalogue.js';
import { toProblem } from '../error-handler.js';
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
  const stopping = problem('shutting-down');
  return async function getReadiness(ctx) {
    const answer = (status: number, body: object, headers = {}) => {
      ctx.status = status;
      ctx.set(headers);
      ctx.body = body;
    };
    // Shutdown has begun (server.close()): read from the connection, which node:net gives `server`.
    if (serverOf(ctx.req.socket)?.listening === false)
      return answer(503, stopping.body({ failing: [] }), stopping.headers);
    const results = await Promise.allSettled(pings.map((ping) => ping()));
    const rejected = (result: PromiseSettledResult<void>): result is PromiseRejectedResult =>
      result.status === 'rejected';
    const failing = checks.filter((_, i) => rejected(results[i]!)).map((check) => check.name);
    if (failing.length === 0) return answer(200, { status: 'ready' });
    const first: unknown = results.find(rejected)?.reason;
    const refusal = toProblem(first);
    if (refusal === undefined || refusal.status !== 503) throw first;
    answer(503, refusal.body({ failing }), refusal.headers);
  };
}
