/**
 * An HTTP-level refusal: the contract's status, its stable error code, a safe message and extra
 * headers. Made only by the error catalogue's `problem()`, so every code has one row there.
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

  /** The contract's Error body. */
  json(): string {
    return JSON.stringify({ error: this.code, message: this.message });
  }
}
