import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { isPlantError } from '../../domain/errors.js';
import type { Logger } from '../../ports/logger.js';
import { BODY_READ_ERRORS, DOMAIN_ERRORS, HttpProblem } from './http-problem.js';

export const JSON_TYPE = 'application/json; charset=utf-8';

/** Sets a JSON body without Koa's type sniffing. */
export function sendJson(ctx: Parameters<Middleware>[0], status: number, json: string): void {
  ctx.status = status;
  ctx.set('Content-Type', JSON_TYPE);
  ctx.body = json;
}

const errorBody = (code: number, message: string): string =>
  JSON.stringify({ error: code, message });

function toProblem(error: unknown): HttpProblem | undefined {
  if (error instanceof HttpProblem) return error;
  if (isPlantError(error)) {
    const row = DOMAIN_ERRORS[error.code];
    return new HttpProblem(row.status, row.code, error.message, row.headers?.(error.scope));
  }
  const status = (error as { status?: unknown } | null)?.status;
  const bodyRead = typeof status === 'number' ? BODY_READ_ERRORS[status] : undefined;
  return bodyRead && new HttpProblem(status as number, bodyRead.code, bodyRead.message);
}

/** First in the stack: every failure leaves as the contract's Error body; unknown ones as 500 with a request id. */
export function errorHandler(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      let problem = toProblem(error);
      if (problem === undefined) {
        const requestId = randomUUID();
        logger.error(
          { err: error, requestId, method: ctx.method, path: ctx.path },
          'unexpected failure',
        );
        problem = new HttpProblem(500, 50001, `unexpected failure; request id ${requestId}`);
      } else if (problem.status === 503) {
        // The store adapters log losing and regaining their server once; per request is detail.
        logger.debug({ method: ctx.method, path: ctx.path }, 'answered 503: storage unavailable');
      }
      ctx.set(problem.headers);
      sendJson(ctx, problem.status, errorBody(problem.code, problem.message));
    }
  };
}
