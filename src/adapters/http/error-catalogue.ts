import { isPlantError, type PlantError, type PlantErrorCode } from '../../domain/errors.js';

/** The largest request body, in bytes after decoding any Content-Encoding; larger is 413 (`body-too-large`). */
export const BODY_LIMIT_BYTES = 65536;

/**
 * A refusal: status, stable code, safe message, extra headers. Made only by `problem()` below;
 * answered by Koa's side (error handler, readiness) and node:http's (server/http-server.ts).
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

/** The operations behind a token. */
const EVERY = ['createPlant', 'listPlants', 'getPlant', 'deletePlant', 'getMetrics'] as const;
/** Every operation: refusals of a request by its head alone, before any route is chosen. */
const ANY = [...EVERY, 'getHealth', 'getReadiness'] as const;
/** The operations of the OpenAPI document, by operationId. */
export type OperationId = (typeof ANY)[number];
const REALM = 'Bearer realm="plant-store"';

/**
 * One refusal; `D` is what the thrower supplies. `when` is the docs' and the OpenAPI's line; a
 * header's `rule` is as the docs write it (`<...>` varies), `value` makes it when it varies;
 * `example`, the OpenAPI's body message, is by default the message without details; `on`: the
 * operations that can answer it, none for refusals before routing.
 */
interface CatalogueEntry<D> {
  readonly status: number;
  readonly code: number;
  readonly when: string;
  readonly message: (detail: D) => string;
  readonly header?: {
    readonly name: 'WWW-Authenticate' | 'Allow' | 'Retry-After';
    readonly rule: string;
    readonly value?: (detail: D) => string;
  };
  readonly example?: string;
  readonly on?: readonly OperationId[];
}

/** A row; its status is its code's first three digits. */
const entry = <D = undefined>(row: Omit<CatalogueEntry<D>, 'status'>): CatalogueEntry<D> => ({
  status: Math.floor(row.code / 100),
  ...row,
});
/** What a domain refusal supplies: the PlantError itself (its safe message, and scope when it has one). */
type DomainDetail = Pick<PlantError, 'message' | 'scope'>;
/** A domain refusal's row: its message is the PlantError's. */
const domainEntry = (row: Omit<CatalogueEntry<DomainDetail>, 'status' | 'message'>) =>
  entry<DomainDetail>({ ...row, message: ({ message }) => message });
const retryAfterOne = { name: 'Retry-After', rule: '1' } as const;

/** Every error the service answers, by name (docs/errors.md: how to add one). */
export const ERROR_CATALOGUE = {
  'not-http': entry({
    code: 40000,
    when: 'the request is not valid HTTP; the HTTP parser refuses it before any route, and the connection closes',
    message: () => 'malformed HTTP request',
  }),
  'invalid-body': entry({
    code: 40001,
    when: 'body is not valid JSON (or not UTF-8, cut short, does not decode with its Content-Encoding, or has a key twice with different values), or not a JSON object',
    message: (message?: string) => message ?? 'request body could not be read completely',
    example: 'request body is not valid JSON: Unexpected end of JSON input',
    on: ['createPlant'],
  }),
  'invalid-plant': domainEntry({
    code: 40002,
    when: 'a field fails validation; the message names the field',
    example: 'name must be 1 to 256 characters long (got 0)',
    on: ['createPlant'],
  }),
  'invalid-query': domainEntry({
    code: 40003,
    when: '`limit` or `cursor` is invalid or given twice, or `tags` is given more than 20 times or holds a tag no plant can hold',
    example: 'limit must be given at most once',
    on: ['listPlants'],
  }),
  'missing-host': entry({
    code: 40006,
    when: 'an HTTP/1.1 request without a `Host` header, or a request with more than one; the connection closes',
    message: (message?: string) => message ?? 'an HTTP/1.1 request must carry a Host header',
    on: ANY,
  }),
  'invalid-id': entry({
    code: 40004,
    when: 'the path `{id}` is not canonical decimal int64',
    message: () => 'id in the path must be a decimal int64 without sign on zero or leading zeros',
    on: ['getPlant', 'deletePlant'],
  }),
  'malformed-credentials': entry({
    code: 40005,
    when: 'malformed bearer credentials, or more than one Authorization header',
    message: (message: string) => message,
    header: { name: 'WWW-Authenticate', rule: `${REALM}, error="invalid_request"` },
    example: 'send exactly one Authorization header',
    on: EVERY,
  }),
  'missing-credentials': entry({
    code: 40101,
    when: 'no Authorization header, or a scheme other than Bearer',
    message: () => 'an Authorization header with a Bearer token is required',
    header: { name: 'WWW-Authenticate', rule: REALM },
    on: EVERY,
  }),
  'invalid-token': entry({
    code: 40102,
    when: 'unknown, revoked or expired token, or a JWT that fails a check',
    message: () => 'the bearer token is unknown, revoked or expired',
    header: { name: 'WWW-Authenticate', rule: `${REALM}, error="invalid_token"` },
    on: EVERY,
  }),
  'insufficient-scope': domainEntry({
    code: 40301,
    when: 'the token lacks the scope the operation needs',
    header: {
      name: 'WWW-Authenticate',
      rule: `${REALM}, error="insufficient_scope", scope="<scope>"`,
      value: ({ scope = '' }: DomainDetail) =>
        `${REALM}, error="insufficient_scope", scope="${scope}"`,
    },
    example: 'this operation needs the scope plants:write',
    on: EVERY,
  }),
  // 403, not 409 (read as "already stored") nor 429 (waiting does not help): docs/errors.md.
  'plant-quota-reached': domainEntry({
    code: 40302,
    when: 'the tenant holds as many plants as its quota allows (PLANT_STORE_MAX_PLANTS_PER_TENANT); nothing was stored; delete plants first',
    example: 'the tenant holds its quota of 1000000 plants; delete some before creating more',
    on: ['createPlant'],
  }),
  'plant-not-found': domainEntry({
    code: 40401,
    when: "no plant with that id in the caller's tenant (another tenant's plant is not found too)",
    example: 'no plant with id 9007199254740993',
    on: ['getPlant', 'deletePlant'],
  }),
  'no-route': entry({
    code: 40402,
    when: 'no such route',
    message: (path: string) => `no route ${path}`,
    example: 'no route /plant',
  }),
  'method-not-allowed': entry({
    code: 40501,
    when: 'method not allowed on the path; `Allow` lists the methods that are',
    message: ({ method, path, allow }: { method: string; path: string; allow: string }) =>
      `${method} is not allowed on ${path}; use ${allow}`,
    header: { name: 'Allow', rule: '<methods of the path>', value: ({ allow }) => allow },
    example: 'POST is not allowed on /plants/1; use HEAD, GET, DELETE',
    on: EVERY,
  }),
  'connect-refused': entry({
    code: 40502,
    when: 'the method is CONNECT: the service is no proxy; the connection closes',
    message: () => 'CONNECT is not supported: this server is not a proxy',
    header: { name: 'Allow', rule: 'GET, HEAD, POST, DELETE' },
  }),
  'request-timeout': entry({
    code: 40801,
    when: 'the headers did not arrive within `PLANT_STORE_HEADERS_TIMEOUT_MS`, or the whole request within `PLANT_STORE_REQUEST_TIMEOUT_MS`; the connection closes',
    message: () => 'the request did not arrive in time',
    on: ['createPlant'],
  }),
  'duplicate-plant': domainEntry({
    code: 40901,
    when: 'a plant with this id already exists in the tenant',
    example: 'a plant with id 9007199254740993 already exists',
    on: ['createPlant'],
  }),
  'body-too-large': entry({
    code: 41301,
    when: `body larger than ${BODY_LIMIT_BYTES} bytes, as received or after decoding its Content-Encoding; the connection closes`,
    message: () => `request body is larger than ${BODY_LIMIT_BYTES} bytes`,
    on: ['createPlant'],
  }),
  'unsupported-media-type': entry({
    code: 41501,
    when: '`Content-Type` is not `application/json` (or names a charset other than utf-8), or an unknown Content-Encoding',
    message: (message?: string) =>
      message ?? 'Content-Type must be application/json (charset utf-8)',
    on: ['createPlant'],
  }),
  'rate-limited': entry({
    code: 42901,
    when: "the tenant's rate limit is exceeded",
    message: ({ perSecond }: { perSecond: number; wait: number }) =>
      `rate limit of ${perSecond} requests a second exceeded`,
    header: {
      name: 'Retry-After',
      rule: '<seconds until a request is admitted>',
      value: ({ wait }) => String(wait),
    },
    example: 'rate limit of 20 requests a second exceeded',
    on: EVERY,
  }),
  'expectation-failed': entry({
    code: 41701,
    when: 'an `Expect` header other than `100-continue` (in any case) alone; the connection closes',
    message: () => 'the Expect header is not supported; only 100-continue is',
    on: ANY,
  }),
  'too-many-auth-failures': entry({
    code: 42902,
    when: 'the client address used up its failed authentications (`PLANT_STORE_AUTH_FAILURE_LIMIT` a second); checked before the token',
    message: (wait: number) =>
      `too many failed authentications from this address; retry in ${wait} s`,
    header: {
      name: 'Retry-After',
      rule: '<seconds until a failure is allowed again>',
      value: (wait) => String(wait),
    },
    example: 'too many failed authentications from this address; retry in 1 s',
    on: EVERY,
  }),
  'headers-too-large': entry({
    code: 43101,
    when: 'request headers are larger than the HTTP parser accepts; the connection closes',
    message: () => 'request headers are too large',
  }),
  'unexpected-failure': entry({
    code: 50001,
    when: 'unexpected failure; the message holds only a request id, which the log line carries with the details',
    message: (requestId: string) => `unexpected failure; request id ${requestId}`,
    example: 'unexpected failure; request id 2f1c6f0e-6d1a-4c53-9a53-2f0b8e0c7d41',
    on: EVERY,
  }),
  'storage-unavailable': domainEntry({
    code: 50301,
    when: 'storage unreachable or timed out; nothing was half-written',
    header: retryAfterOne,
    example: 'storage is unavailable',
    on: EVERY,
  }),
  // 503 like an outage, a code of its own since retrying within seconds rarely helps (docs/errors.md).
  'storage-refuses-writes': domainEntry({
    code: 50303,
    when: 'the store takes no writes now: Redis out of memory (maxmemory) or unable to persist (MISCONF), MongoDB out of disk or read-only, or the memory store near its heap limit; nothing was written, and /readyz answers the same',
    example:
      'storage takes no writes now (out of memory or disk, or read-only); nothing was written',
    header: { name: 'Retry-After', rule: '30' },
    on: ['createPlant', 'deletePlant'],
  }),
  'shutting-down': entry({
    code: 50304,
    when: 'readiness only: the service is shutting down (SIGTERM or SIGINT); it answers what it has received and takes no new connections',
    message: () => 'the service is shutting down',
    // No operation: /readyz describes its 503 bodies itself (NotReady), as it does for 50301 and 50303.
    header: retryAfterOne,
  }),
  'metrics-unavailable': entry({
    code: 50305,
    when: 'under `serve --workers`, a worker did not send its metrics in time (a worker that stops answering is replaced within seconds)',
    message: () => "the instance's metrics could not be gathered in time",
    header: retryAfterOne,
    on: ['getMetrics'],
  }),
  'token-verification-unavailable': domainEntry({
    code: 50302,
    when: "the identity provider's keys (JWKS) cannot be fetched, so a JWT can be neither accepted nor refused",
    header: retryAfterOne,
    example: "the token issuer's keys are unavailable",
    on: EVERY,
  }),
};

export type ErrorName = keyof typeof ERROR_CATALOGUE;
type DetailOf<N extends ErrorName> = Parameters<(typeof ERROR_CATALOGUE)[N]['message']>[0];

/** The catalogue as rows, by ascending code, for the docs and the OpenAPI document. */
export const ERROR_ROWS = (Object.entries(ERROR_CATALOGUE) as [ErrorName, CatalogueEntry<never>][])
  .map(([name, row]) => ({
    ...row,
    name,
    example: row.example ?? row.message(undefined as never),
    on: row.on ?? [],
  }))
  .sort((a, b) => a.code - b.code);

function refusal<D>(row: CatalogueEntry<D>, detail: D): HttpProblem {
  const { header } = row;
  const headers = header ? { [header.name]: header.value?.(detail) ?? header.rule } : {};
  return new HttpProblem(row.status, row.code, row.message(detail), headers);
}

/** The refusal `name` of the catalogue, with what its message and header need. */
export function problem<N extends ErrorName>(
  name: N,
  ...[detail]: undefined extends DetailOf<N> ? [DetailOf<N>?] : [DetailOf<N>]
): HttpProblem {
  return refusal(ERROR_CATALOGUE[name] as CatalogueEntry<DetailOf<N>>, detail as DetailOf<N>);
}

/** Every domain code's row, taking the PlantError: a PlantErrorCode without one does not compile. */
const DOMAIN_ROWS: { readonly [C in PlantErrorCode]: CatalogueEntry<DomainDetail> } =
  ERROR_CATALOGUE;

export const UNKNOWN_CODING = 'Content-Encoding must be identity, gzip, deflate or br';
/** Errors of raw-body reading a body (and of a host's inflation), by their status. */
const BODY_READ_ERRORS: Readonly<Record<number, () => HttpProblem>> = {
  400: () => problem('invalid-body'),
  413: () => problem('body-too-large'),
  415: () => problem('unsupported-media-type', UNKNOWN_CODING),
};

/** The contract's answer to an error, or undefined for an unexpected one (a 500). */
export function toProblem(error: unknown): HttpProblem | undefined {
  if (error instanceof HttpProblem) return error;
  if (isPlantError(error)) return refusal(DOMAIN_ROWS[error.code], error);
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? BODY_READ_ERRORS[status]?.() : undefined;
}
