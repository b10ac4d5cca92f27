/**
 * The contract's stable `error` codes, every one of docs/errors.md; the first three digits are the
 * HTTP status. A literal list, since the client imports nothing of the server; a test holds it equal
 * to the server's catalogue. Names are the catalogue's row names in capitals, except three older
 * names kept for callers: MALFORMED_JSON (invalid-body), INVALID_PATH_ID (invalid-id) and
 * UNEXPECTED (unexpected-failure).
 */
export const ERROR_CODES = {
  NOT_HTTP: 40000,
  MALFORMED_JSON: 40001,
  INVALID_PLANT: 40002,
  INVALID_QUERY: 40003,
  INVALID_PATH_ID: 40004,
  MALFORMED_CREDENTIALS: 40005,
  MISSING_HOST: 40006,
  MISSING_CREDENTIALS: 40101,
  INVALID_TOKEN: 40102,
  INSUFFICIENT_SCOPE: 40301,
  PLANT_QUOTA_REACHED: 40302,
  PLANT_NOT_FOUND: 40401,
  NO_ROUTE: 40402,
  METHOD_NOT_ALLOWED: 40501,
  CONNECT_REFUSED: 40502,
  REQUEST_TIMEOUT: 40801,
  DUPLICATE_PLANT: 40901,
  BODY_TOO_LARGE: 41301,
  UNSUPPORTED_MEDIA_TYPE: 41501,
  EXPECTATION_FAILED: 41701,
  RATE_LIMITED: 42901,
  TOO_MANY_AUTH_FAILURES: 42902,
  HEADERS_TOO_LARGE: 43101,
  UNEXPECTED: 50001,
  STORAGE_UNAVAILABLE: 50301,
  TOKEN_VERIFICATION_UNAVAILABLE: 50302,
  STORAGE_REFUSES_WRITES: 50303,
  SHUTTING_DOWN: 50304,
  METRICS_UNAVAILABLE: 50305,
} as const;

/** How many requests a call sent, and the statuses of those that were retried. */
export interface Attempts {
  /** Requests sent for this call (1 when nothing was retried). */
  readonly attempts: number;
  /** Status of each earlier attempt that was retried, in order (e.g. `[503]`). */
  readonly retried: readonly number[];
}

/**
 * Base of every failure of the client; `status` and `code` are set when the service answered.
 * (A call the caller aborts rejects with the signal's own reason instead, as `fetch` does.)
 */
export class PlantStoreError extends Error {
  /** The HTTP status of the answer, when there was one. */
  readonly status: number | undefined;
  /** The contract's `error` code (see ERROR_CODES), when the answer carried one. */
  readonly code: number | undefined;

  constructor(message: string, status?: number, code?: number, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PlantStoreError';
    this.status = status;
    this.code = code;
  }
}

/** The service answered with the contract's Error body: `{"error": code, "message": ...}`. */
export class PlantStoreHttpError extends PlantStoreError implements Attempts {
  declare readonly status: number;
  declare readonly code: number;

  constructor(
    status: number,
    code: number,
    message: string,
    /** Retry-After of the answer in milliseconds, when it had one (429 and 503 do). */
    readonly retryAfterMs: number | undefined,
    readonly attempts: number,
    readonly retried: readonly number[],
  ) {
    super(message, status, code);
    this.name = 'PlantStoreHttpError';
  }
}

/** Something answered that is not the contract (a proxy's page, a wrong base URL, a broken body). */
export class PlantStoreResponseError extends PlantStoreError {
  constructor(
    status: number,
    message: string,
    /** The start of the body, for diagnosis. */
    readonly body: string,
  ) {
    super(message, status);
    this.name = 'PlantStoreResponseError';
  }
}

/** No answer: the connection failed (refused, reset, DNS, TLS); the cause is fetch's error. */
export class PlantStoreNetworkError extends PlantStoreError {
  constructor(message: string, cause: unknown) {
    super(message, undefined, undefined, { cause });
    this.name = 'PlantStoreNetworkError';
  }
}

/** The call did not finish within its timeout (retries and their waits included). */
export class PlantStoreTimeoutError extends PlantStoreError {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'PlantStoreTimeoutError';
  }
}
