import type { Middleware } from 'koa';
import type { Logger } from '../../ports/logger.js';
import { problem, toProblem } from './error-catalogue.js';
import { requestLog } from './request-observer.js';
import { requestState } from './request-state.js';

/** Inside the observer and CORS: every failure leaves as the Error body; unknown ones as 500. */
export function errorHandler(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const state = requestState(ctx);
      let answer = toProblem(error);
      if (answer === undefined) {
        // The request's logger adds its id, which the answer's message and X-Request-Id carry too.
        const fields = { err: error, method: ctx.method, path: ctx.path };
        requestLog(ctx, logger).error(fields, 'unexpected failure');
        answer = problem('unexpected-failure', state.requestId);
      } else if (answer.status === 503) {
        // The stores log losing and regaining their server once; per request is detail.
        const fields = { method: ctx.method, path: ctx.path, error: answer.code };
        requestLog(ctx, logger).debug(fields, 'answered 503');
      }
      state.errorCode = answer.code;
      ctx.status = answer.status;
      ctx.set(answer.headers);
      ctx.body = answer.body();
    }
  };
}
