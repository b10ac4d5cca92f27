/**
 * An HTTP-level refusal: the contract's status, its stable error code, a safe message and extra
 * headers. Made only by the error catalogue's `problem()`, so every code has one row there. Its own
 * module because both sides of the adapter answer with it: Koa's (the error handler, readiness)
 * and node:http's for sockets no Koa context owns (server/client-error.ts).
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

  /**
   * The contract's Error body, `{error, message}`, and the fields a route adds to it (readiness's
   * `failing`): the one place it is built, whichever side answers.
   */
  body(extra?: Readonly<Record<string, unknown>>): Record<string, unknown> {
    return { error: this.code, message: this.message, ...extra };
  }
}
