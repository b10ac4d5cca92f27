import type { Middleware } from 'koa';
import { isPlantError } from '../../domain/errors.js';
import type { Logger } from '../../ports/logger.js';
import { domainProblem, HttpProblem, problem } from './error-catalogue.js';
import { requestLog } from './request-observer.js';
import { requestState } from './request-state.js';

/** Errors that Koa's body reading raises (raw-body, inflation), by their status. */
const BODY_READ_ERRORS: Readonly<Record<number, () => HttpProblem>> = {
  400: () => problem('invalid-body'),
  413: () => problem('body-too-large'),
  415: () =>
    problem('unsupported-media-type', 'Content-Encoding must be identity, gzip, deflate or br'),
};

/** The contract's answer to an error, or undefined for an unexpected one (a 500). */
export function toProblem(error: unknown): HttpProblem | undefined {
  if (error instanceof HttpProblem) return error;
  if (isPlantError(error)) return domainProblem(error);
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? BODY_READ_ERRORS[status]?.() : undefined;
}

/** Inside the observer and CORS: every failure leaves as the Error body; unknown ones as 500. */
export function errorHandler(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      let answer = toProblem(error);
      if (answer === undefined) {
        // The request's logger adds its id, which the answer's message and X-Request-Id carry too.
        const log = requestLog(ctx, logger);
        const { requestId } = requestState(ctx);
        log.error({ err: error, method: ctx.method, path: ctx.path }, 'unexpected failure');
        answer = problem('unexpected-failure', requestId);
      } else if (answer.status === 503) {
        // The stores log losing and regaining their server once; per request is detail.
        requestLog(ctx, logger).debug(
          { method: ctx.method, path: ctx.path, error: answer.code },
          'answered 503',
        );
      }
      requestState(ctx).errorCode = answer.code;
      ctx.status = answer.status;
      ctx.set(answer.headers);
      ctx.body = answer.body();
    }
  };
}
