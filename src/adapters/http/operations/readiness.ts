import type { Middleware } from 'koa';
import type { PlantStore } from '../../../ports/plant-store.js';
import type { TokenStore } from '../../../ports/token-store.js';
import { draining } from '../server/draining.js';
import { problem } from '../error-catalogue.js';
import { toProblem } from '../error-handler.js';
import { answerJson } from '../json-answer.js';
import { sharedPing } from './shared-ping.js';

/** The stores readiness asks, by the name its body gives them. */
export interface ReadinessStores {
  plants: Pick<PlantStore, 'ping'>;
  tokens?: Pick<TokenStore, 'ping'> | undefined;
}

/**
 * GET /readyz: 503 50304 (`failing` empty) once shutdown has begun; 200 while every store serves; else 503 with the first failing store's Error body
 * (50301 unreachable, 50303 refusing writes) and `failing`, the stores that cannot serve. An
 * unexpected failure goes on to the error handler (500). Each store is asked at most once per
 * READINESS_INTERVAL_MS, its answer shared by every caller meanwhile.
 */
export function readiness(stores: ReadinessStores): Middleware {
  const parts = Object.entries(stores).filter(([, store]) => store !== undefined) as [
    string,
    Pick<PlantStore, 'ping'>,
  ][];
  const pings = parts.map(([, store]) => sharedPing(store));
  const stopping = problem('shutting-down');
  const stoppingBody = JSON.stringify({
    error: stopping.code,
    message: stopping.message,
    failing: [],
  });
  return async function getReadiness(ctx) {
    if (draining(ctx.req)) return answerJson(ctx, 503, stoppingBody, stopping.headers);
    const results = await Promise.allSettled(pings.map((store) => store.ping()));
    const failing: string[] = [];
    let first: unknown;
    results.forEach((result, i) => {
      if (result.status === 'fulfilled') return;
      failing.push(parts[i]![0]);
      first ??= result.reason;
    });
    if (failing.length === 0) return answerJson(ctx, 200, '{"status":"ready"}');
    const answer = toProblem(first);
    if (answer === undefined || answer.status !== 503) throw first;
    const body = JSON.stringify({ error: answer.code, message: answer.message, failing });
    answerJson(ctx, 503, body, answer.headers);
  };
}
