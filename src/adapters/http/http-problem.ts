/**
 * An HTTP-level refusal: status, stable error code, safe message, extra headers. Made only by the
 * catalogue's `problem()`; answered by Koa's side (error handler, readiness) and node:http's
 * (server/client-error.ts).
 */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'HttpProblem';
  }

  /** The contract's Error body, `{error, message}`, with what a route adds (readiness's `failing`). */
  body(extra?: Readonly<Record<string, unknown>>): Record<string, unknown> {
    return { error: this.code, message: this.message, ...extra };
  }
}
