import type { PlantErrorCode } from '../../domain/errors.js';

/** An HTTP-level refusal: the contract's status, its stable error code, a safe message and extra headers. */
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
}

export const REALM = 'Bearer realm="plant-store"';
export const RETRY_AFTER_SECONDS = '1';

/** The domain's refusals, in the contract's terms: the one table that maps them. */
export const DOMAIN_ERRORS: Readonly<
  Record<
    PlantErrorCode,
    { status: number; code: number; headers?: (scope?: string) => Record<string, string> }
  >
> = {
  'invalid-plant': { status: 400, code: 40002 },
  'invalid-query': { status: 400, code: 40003 },
  'insufficient-scope': {
    status: 403,
    code: 40301,
    headers: (scope) => ({
      'WWW-Authenticate': `${REALM}, error="insufficient_scope", scope="${scope ?? ''}"`,
    }),
  },
  'plant-not-found': { status: 404, code: 40401 },
  'duplicate-plant': { status: 409, code: 40901 },
  'storage-unavailable': {
    status: 503,
    code: 50301,
    headers: () => ({ 'Retry-After': RETRY_AFTER_SECONDS }),
  },
};

/** Errors that Koa's body reading raises (raw-body, inflation), by their status. */
export const BODY_READ_ERRORS: Readonly<Record<number, { code: number; message: string }>> = {
  400: { code: 40001, message: 'request body could not be read completely' },
  413: { code: 41301, message: 'request body is larger than 65536 bytes' },
  415: { code: 41501, message: 'Content-Encoding must be identity, gzip, deflate or br' },
};
