import type { IncomingMessage } from 'node:http';
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

/** How long one readiness look at a store answers for: /readyz asks each store at most once a second. */
const READINESS_INTERVAL_MS = 1000;

/**
 * The store's ping, shared: callers while one runs get its outcome, and so do callers within
 * `intervalMs` after it settled. An unauthenticated /readyz then costs each store at most one look
 * per interval, however many ask, at the price of an answer up to `intervalMs` old.
 */
function sharedPing(
  store: ReadinessCheck,
  intervalMs = READINESS_INTERVAL_MS,
): Pick<ReadinessCheck, 'ping'> {
  let outcome: Promise<void> | undefined;
  let running = false;
  let freshUntil = 0;
  return {
    ping(): Promise<void> {
      if (outcome !== undefined && (running || Date.now() < freshUntil)) return outcome;
      running = true;
      outcome = Promise.resolve()
        .then(() => store.ping())
        .finally(() => {
          running = false;
          freshUntil = Date.now() + intervalMs;
        });
      // Callers handle the outcome; a shared rejection kept for later ones is no unhandled one.
      outcome.catch(() => {});
      return outcome;
    },
  };
}

/**
 * Whether the server that accepted this request has stopped listening: shutdown has begun
 * (server.close()), so readiness answers 503. Read from the connection (node:net sets
 * `socket.server`), so that no flag has to be passed around.
 */
function draining(req: IncomingMessage): boolean {
  return serverOf(req.socket)?.listening === false;
}

/**
 * GET /readyz: 503 50304 (`failing` empty) once shutdown has begun; 200 while every check passes;
 * else 503 with the first failing check's Error body (50301 unreachable, 50303 refusing writes)
 * and `failing`, the names of the checks that fail. An unexpected failure goes on to the error
 * handler (500). Each check runs at most once per READINESS_INTERVAL_MS, its answer shared by
 * every caller meanwhile.
 */
export function readiness(checks: readonly ReadinessCheck[]): Middleware {
  const pings = checks.map((check) => sharedPing(check));
  const stopping = problem('shutting-down');
  return async function getReadiness(ctx) {
    const answer = (status: number, body: object, headers = {}) => {
      ctx.status = status;
      ctx.set(headers);
      ctx.body = body;
    };
    if (draining(ctx.req)) return answer(503, stopping.body({ failing: [] }), stopping.headers);
    const results = await Promise.allSettled(pings.map((check) => check.ping()));
    const failing: string[] = [];
    let first: unknown;
    results.forEach((result, i) => {
      if (result.status === 'fulfilled') return;
      failing.push(checks[i]!.name);
      first ??= result.reason;
    });
    if (failing.length === 0) return answer(200, { status: 'ready' });
    const refusal = toProblem(first);
    if (refusal === undefined || refusal.status !== 503) throw first;
    answer(503, refusal.body({ failing }), refusal.headers);
  };
}
