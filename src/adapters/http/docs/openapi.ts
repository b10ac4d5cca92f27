import { MAX_LIMIT, DEFAULT_LIMIT } from '../../../application/plant-service.js';
import { MAX_FILTER_TAGS, NAME_MAX, TAG_MAX } from '../../../domain/plant.js';
import { MAX_PLANT_ID, MIN_PLANT_ID } from '../../../domain/plant-id.js';
import {
  BODY_LIMIT_BYTES,
  ERROR_CATALOGUE,
  ERROR_ROWS,
  type ErrorName,
  type OperationId,
} from '../error-catalogue.js';
import { nextLink } from '../pagination.js';

/** A response whose body is JSON of `schema`, shown by `examples`. */
function jsonResponse<E extends object>(
  description: string,
  schema: object,
  examples: E,
  headers?: Record<string, object>,
) {
  return {
    description,
    ...(headers && { headers }),
    content: { 'application/json': { schema, examples } },
  };
}
const errorSchema = { $ref: '#/components/schemas/Error' };

// Examples of the OpenAPI document. Ids are bigints so that the served JSON (lossless-json) carries
// 9007199254740993 digit for digit: above 2^53, where a double would round it to ...992.

/** 2^53 + 1: the smallest positive integer a double cannot hold. */
const LARGE_ID = 9007199254740993n;

const createdPlantExample = {
  'large-id': {
    summary: 'The plant as stored (never the id)',
    value: { name: 'Monstera deliciosa', tag: 'aroid' },
  },
};

/** Each error status `operation` can answer, described by the catalogue's rows for it. */
function errorResponses(operation: OperationId): Record<string, object> {
  const responses: Record<string, ReturnType<typeof jsonResponse<Record<number, object>>>> = {};
  for (const { status, code, when, example, header, on } of ERROR_ROWS) {
    if (!on.includes(operation)) continue;
    const response = (responses[status] ??= jsonResponse('', errorSchema, {}, {}));
    response.description += `${response.description && ' '}${code}: ${when}.`;
    // One example body per code, so that a reader sees every Error the operation can answer.
    response.content['application/json'].examples[code] = {
      summary: String(code),
      value: { error: code, message: example },
    };
    if (header) response.headers![header.name] = { $ref: `#/components/headers/${header.name}` };
  }
  return responses;
}

/** An operation of `tag`: its `responses` and every error the catalogue gives it. */
const operation = <F extends { summary: string; responses: object }>(
  operationId: OperationId,
  tag: string,
  { responses, ...fields }: F,
) => ({
  operationId,
  tags: [tag],
  ...fields,
  responses: { ...responses, ...errorResponses(operationId) },
});

/** The catalogue as a markdown table, for readers of the description (and of /docs). */
function errorTable(): string {
  const cell = (text: string) => text.replaceAll('|', '\\|');
  const rows = ERROR_ROWS.map(
    ({ status, code, when, header }) =>
      `| ${status} | ${code} | ${cell(when)} | ${header ? cell(`\`${header.name}: ${header.rule}\``) : ''} |`,
  );
  return ['| status | error | when | headers |', '|---|---|---|---|', ...rows].join('\n');
}

/** "404 40402, 405 40501": where the overview names refusals. */
const cite = (...names: ErrorName[]): string =>
  names.map((name) => `${ERROR_CATALOGUE[name].status} ${ERROR_CATALOGUE[name].code}`).join(', ');

const textRule =
  'Unicode code points; no control characters (category Cc), no unpaired surrogates and no ' +
  'bidirectional controls (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C).';
const noControl =
  '^[^\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]*$';
/** A string field of the plant, `minLength` to `maxLength` code points, printable. */
const text = (minLength: number, maxLength: number, description: string) => ({
  type: 'string',
  minLength,
  maxLength,
  pattern: noControl,
  description: `${description} ${textRule}`,
});

const plantSchema = { $ref: '#/components/schemas/Plant' };
const plantResponse = (description: string) =>
  jsonResponse(description, plantSchema, createdPlantExample);

/** The 503 bodies of /readyz: the catalogue's code and message, a summary, the failing stores. */
const notReadyExamples = Object.fromEntries(
  (
    [
      ['storage-unavailable', 'the token store cannot be reached', ['tokens']],
      ['storage-refuses-writes', 'the plant store is out of memory', ['plants']],
      ['shutting-down', 'SIGTERM: the service is shutting down', []],
    ] as const
  ).map(([name, summary, failing]) => {
    const { code, example } = ERROR_ROWS.find((row) => row.name === name)!;
    return [code, { summary, value: { error: code, message: example, failing } }];
  }),
);

const statusBody = (value: string) => ({
  type: 'object',
  required: ['status'],
  additionalProperties: false,
  properties: { status: { const: value } },
});

const stringHeader = (description: string) => ({ description, schema: { type: 'string' } });

const signatureHeader = (name: string, description: string, pattern: string) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string', pattern },
});

/** `{id}` in `/plants/{id}`. */
const idParameter = {
  name: 'id',
  in: 'path',
  required: true,
  description: `Canonical decimal int64: no sign on zero, no leading zeros. Anything else is ${cite('invalid-id')}.`,
  schema: { type: 'string', pattern: '^-?(0|[1-9][0-9]*)$' },
  example: String(LARGE_ID),
} as const;

/** The OpenAPI 3.1 description of the whole contract, served at /openapi.json. */
export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'Plant store',
    version: '1.0.0',
    license: { name: 'MIT', identifier: 'MIT' },
    description: [
      'A small HTTP/JSON service that keeps plants: create one, list them page by page (all, or those of some tags),',
      'read one, delete one.',
      'Ids are exact signed 64-bit integers: send them as JSON numbers, all digits are kept',
      '(9007199254740993 stays 9007199254740993, even where a double would round it).',
      '',
      '**Authentication**: every `/plants` operation needs a bearer token; the `bearerAuth` security',
      'scheme says how to obtain one. In the interactive reference at `/docs`, choose **Authorize**',
      '(it shows the same), paste the token, then open an operation, adjust the example and **Execute** it.',
      '',
      'Keeps plants per tenant. Every `/plants` operation needs `Authorization: Bearer <token>`;',
      'a token stands for a tenant and the scopes `plants:read` (GET) and `plants:write` (POST, DELETE).',
      'Another tenant\'s plants are invisible: their ids answer "not found", never "forbidden".',
      '',
      '**Browsers**: pages on another origin may call the service only when the operator names their origins',
      '(`PLANT_STORE_CORS_ORIGINS`, or `*`; off by default). Then every answer, errors included, carries the CORS',
      'headers, `Link`, `Retry-After`, `WWW-Authenticate` and `X-Request-Id` are exposed to the page, and preflights',
      'answer 204 for `GET`, `HEAD`, `POST` and `DELETE` with `Authorization`, `Content-Type` and `X-Request-Id`.',
      '',
      'When several errors apply, the first failing check wins: route',
      `(${cite('no-route', 'method-not-allowed')}) -> failed authentications of the client address (${cite('too-many-auth-failures')})`,
      `-> credentials (${cite('malformed-credentials', 'missing-credentials', 'invalid-token', 'token-verification-unavailable')})`,
      `-> rate limit (${cite('rate-limited')}) -> scope (${cite('insufficient-scope')}) -> media type (${cite('unsupported-media-type')})`,
      `-> size (${cite('body-too-large')}) -> body syntax (${cite('invalid-body')}) -> fields, query and path`,
      `(${cite('invalid-plant', 'invalid-query', 'invalid-id')}) -> the store (${cite('plant-not-found', 'duplicate-plant', 'storage-unavailable')}).`,
      'Every error body is an `Error`; `error` is a stable code whose first three digits are the status.',
      `Requests refused by the HTTP parser itself answer ${cite('headers-too-large')} (headers too large) or ${cite('not-http')} (not valid HTTP);`,
      `those that do not arrive in time ${cite('request-timeout')}, an HTTP/1.1 request without Host ${cite('missing-host')},`,
      `an Expect other than 100-continue ${cite('expectation-failed')}, CONNECT ${cite('connect-refused')}; each closes the connection.`,
      'Every code, with its status, headers and when it occurs (also as data in `x-error-catalogue`):',
      '',
      errorTable(),
    ].join('\n'),
  },
  servers: [{ url: '/' }],
  security: [{ bearerAuth: [] }],
  tags: [
    {
      name: 'plants',
      description:
        "The plants of the caller's tenant: create (`plants:write`), list by ascending id " +
        '(`plants:read`, paged with `limit` and the `Link` header, filtered with `tags`), get one ' +
        '(`plants:read`) and delete (`plants:write`).',
    },
    {
      name: 'operations',
      description:
        'For operators and load balancers: liveness, readiness, and Prometheus metrics (`metrics:read`).',
    },
  ],
  paths: {
    '/plants': {
      get: operation('listPlants', 'plants', {
        summary: "List the plants of the caller's tenant, by ascending id",
        description:
          'Ordered by ascending `id` over the whole int64 range. When more plants may follow, the response ' +
          'carries `Link: <...>; rel="next"` whose URL continues the list in order, without gaps or repeats, ' +
          'even when plants are added or deleted in between. Needs the scope `plants:read`.',
        parameters: [
          {
            name: 'limit',
            in: 'query',
            required: false,
            description:
              `The most plants to return. Absent: ${DEFAULT_LIMIT}. 0: an empty array. Values above ${MAX_LIMIT} are ` +
              `treated as ${MAX_LIMIT}. Canonical decimal digits only; anything else, or the parameter given twice, is ${cite('invalid-query')}.`,
            schema: {
              type: 'integer',
              format: 'int32',
              minimum: 0,
              maximum: 2147483647,
              default: DEFAULT_LIMIT,
            },
            example: 2,
          },
          {
            name: 'cursor',
            in: 'query',
            required: false,
            description:
              'Opaque position taken from a `Link: rel="next"` header; holds no server state and stays valid ' +
              `across restarts and instances. One that cannot be decoded is ${cite('invalid-query')}.`,
            schema: { type: 'string' },
          },
          {
            name: 'tags',
            in: 'query',
            required: false,
            style: 'form',
            explode: true,
            description:
              'Tags to filter by: only the plants whose `tag` is one of them, each parameter one tag ' +
              `(\`?tags=aroid&tags=fern\`; a comma is part of a tag). At most ${MAX_FILTER_TAGS}, each a tag a plant can ` +
              'hold; `tags=` is the empty tag, and a plant without a tag matches no filter. The next link keeps ' +
              `the filter. A page costs what an unfiltered page costs. Anything else is ${cite('invalid-query')}.`,
            schema: {
              type: 'array',
              maxItems: MAX_FILTER_TAGS,
              items: { $ref: '#/components/schemas/Plant/properties/tag' },
            },
            // No example: /docs fills a parameter's example in, and the list would be filtered.
          },
        ],
        responses: {
          '200': jsonResponse(
            'A page of plants (a plain array; never an id).',
            { type: 'array', items: plantSchema },
            {
              'first-page': {
                summary: 'Two plants of `limit=2`; the `Link` header continues the list',
                value: [{ name: 'Boston fern' }, { name: 'Monstera deliciosa', tag: 'aroid' }],
              },
            },
            {
              Link: {
                description:
                  'RFC 8288 link to the next page (`rel="next"`), present when more plants may follow.',
                schema: { type: 'string' },
                example: nextLink('/plants', LARGE_ID, '2'),
              },
            },
          ),
        },
      }),
      post: operation('createPlant', 'plants', {
        summary: "Create a plant in the caller's tenant",
        description:
          `Needs the scope \`plants:write\`. The body is at most ${BODY_LIMIT_BYTES} bytes of UTF-8 JSON. ` +
          '`id` is exact over the whole int64 range (9007199254740993 stays 9007199254740993); ' +
          'a JSON number with an integer value counts (`12`, `12.0`, `1.2e1`). Unknown fields are ignored and never stored.',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/NewPlant' },
              examples: {
                'large-id': {
                  summary: 'An id above 2^53, kept exact',
                  value: { id: LARGE_ID, name: 'Monstera deliciosa', tag: 'aroid' },
                },
                'without-tag': {
                  summary: 'No tag: the plant is stored without one',
                  value: { id: 42n, name: 'Boston fern' },
                },
              },
            },
          },
        },
        responses: {
          '200': plantResponse('The plant as stored (name and tag; never the id).'),
        },
      }),
    },
    '/plants/{id}': {
      get: operation('getPlant', 'plants', {
        parameters: [idParameter],
        summary: "One plant of the caller's tenant",
        description:
          'Needs the scope `plants:read`. `HEAD` answers the same status and headers without a body. ' +
          "An id with no plant in the caller's tenant (also one another tenant holds) is not found.",
        responses: {
          '200': plantResponse('The plant (name and tag; never the id).'),
        },
      }),
      delete: operation('deletePlant', 'plants', {
        summary: "Delete one plant of the caller's tenant",
        description: 'Needs the scope `plants:write`.',
        parameters: [idParameter],
        responses: { '204': { description: 'Deleted; no body.' } },
      }),
    },
    // Liveness, readiness and metrics: open to load balancers, except metrics (scope metrics:read).
    '/healthz': {
      get: operation('getHealth', 'operations', {
        summary: 'Liveness: 200 whenever the process can answer',
        security: [],
        responses: {
          '200': jsonResponse('The process answers.', statusBody('ok'), {
            ok: { value: { status: 'ok' } },
          }),
        },
      }),
    },
    '/readyz': {
      get: operation('getReadiness', 'operations', {
        summary: 'Readiness: 200 while the plant store and the token store both serve',
        description:
          "Asks both stores. 503 while either cannot serve, with the first failing store's code " +
          `(${cite('storage-unavailable')} unreachable, ${cite('storage-refuses-writes')} taking no writes) and \`failing\`, ` +
          'the stores that cannot serve. Each store is asked at most once a second, the answer ' +
          'shared by every caller meanwhile (it may be up to 1 s old). No token needed.',
        security: [],
        responses: {
          '200': jsonResponse('Both stores serve.', statusBody('ready'), {
            ready: { value: { status: 'ready' } },
          }),
          '503': jsonResponse(
            `Not ready: ${ERROR_CATALOGUE['storage-unavailable'].code} a store is unreachable, ${ERROR_CATALOGUE['storage-refuses-writes'].code} the plant store takes no writes, ${ERROR_CATALOGUE['shutting-down'].code} the service is shutting down (\`failing\` empty).`,
            { $ref: '#/components/schemas/NotReady' },
            notReadyExamples,
            { 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
          ),
        },
      }),
    },
    '/metrics': {
      get: operation('getMetrics', 'operations', {
        summary: 'Prometheus metrics, in the text exposition format',
        description:
          'Needs the scope `metrics:read`. Absent (404) when the server sets `PLANT_STORE_METRICS=off`. ' +
          'Requests by method, route template and status class, requests in flight, store calls by ' +
          'operation and adapter, outages, token verifications, refusals, and the Node process.',
        responses: {
          '200': {
            description: 'The metrics.',
            content: {
              'text/plain': {
                schema: { type: 'string' },
                example: 'plant_store_http_requests_in_flight 1\n',
              },
            },
          },
        },
      }),
    },
  },
  // What a subscribed receiver is sent (docs/webhooks.md).
  webhooks: {
    'plant.created': {
      post: {
        operationId: 'plantCreated',
        summary: 'A plant was created in the subscribed tenant',
        description:
          'Sent to each enabled subscription of the tenant (`plant-store webhooks add`) after a create answered 200, ' +
          'at least once: retried with exponential backoff and jitter until a 2xx, and possibly more than once, ' +
          'always with the same `webhook-id`. Signed per Standard Webhooks: verify with the `standardwebhooks` ' +
          'package and the subscription secret (`whsec_...`). The body is exactly the created `NewPlant`; ' +
          '`id` is an exact JSON integer over the whole int64 range (parse it without doubles).',
        security: [],
        parameters: [
          signatureHeader(
            'webhook-id',
            'The event id: the same for every attempt and every receiver of one event; use it to drop duplicates.',
            '^msg_[A-Za-z0-9_-]+$',
          ),
          signatureHeader(
            'webhook-timestamp',
            'Seconds since the Unix epoch when this attempt was signed; refuse it when far from now.',
            '^[0-9]+$',
          ),
          signatureHeader(
            'webhook-signature',
            'Space-separated `v1,<base64 HMAC-SHA256>` of `<webhook-id>.<webhook-timestamp>.<body>` keyed by the secret.',
            '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$',
          ),
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPlant' } } },
        },
        responses: {
          '200': {
            description:
              'Received. Any 2xx acknowledges; anything else, a redirect, no answer within the timeout or a ' +
              'refused connection is a failure that is retried.',
          },
        },
      },
    },
  },
  components: {
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        description: [
          'A token stands for one tenant and its scopes: `plants:read` (GET) and `plants:write` (POST, DELETE)',
          'on `/plants`, `metrics:read` on `/metrics`.',
          'Send it as `Authorization: Bearer <token>`. Three kinds are accepted:',
          '',
          '- **Static tokens**, set by the operator in `PLANT_STORE_TOKENS`, a JSON array such as',
          '  `[{"token": "<at least 16 characters>", "tenant": "acme", "scopes": ["plants:read", "plants:write"]}]`.',
          '  With no token configured, `plant-store serve` prints a development token (kept across restarts on the default storage).',
          '- **Managed tokens** (`pst_...`), issued and revoked with the `plant-store` command:',
          '  `plant-store tokens create --tenant acme --scope plants:read --scope plants:write` prints the',
          '  token once; `plant-store tokens list` and `plant-store tokens revoke <id>` manage them.',
          '- **JWTs** from an OpenID Connect identity provider, when the server sets `PLANT_STORE_JWT_ISSUER`,',
          '  `PLANT_STORE_JWT_AUDIENCE` and a JWKS URL or public key: the tenant comes from a claim',
          '  (`tenant` unless `PLANT_STORE_JWT_TENANT_CLAIM` names another), the scopes from `scope` (or `scp`).',
        ].join('\n'),
      },
    },
    headers: {
      'WWW-Authenticate': stringHeader(
        'RFC 6750 challenge: `Bearer realm="plant-store"`, with `error` and `scope` where they apply.',
      ),
      Allow: stringHeader('The methods the path allows, comma-separated.'),
      'Retry-After': stringHeader('Seconds to wait before trying again.'),
    },
    schemas: {
      Plant: {
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: {
          name: text(1, NAME_MAX, 'The name of the plant.'),
          tag: text(0, TAG_MAX, 'Tag that specifies the type of plant; an empty tag is kept.'),
        },
      },
      NewPlant: {
        type: 'object',
        required: ['name', 'id'],
        properties: {
          name: { $ref: '#/components/schemas/Plant/properties/name' },
          tag: { $ref: '#/components/schemas/Plant/properties/tag' },
          id: {
            type: 'integer',
            format: 'int64',
            // bigint, so that the served JSON carries the bounds exactly.
            minimum: MIN_PLANT_ID,
            maximum: MAX_PLANT_ID,
            description:
              'Identification number of the plant, unique per tenant; exact over the whole int64 range' +
              ` (${MIN_PLANT_ID} to ${MAX_PLANT_ID}).`,
          },
        },
      },
      NotReady: {
        type: 'object',
        required: ['error', 'message', 'failing'],
        additionalProperties: false,
        properties: {
          error: { $ref: '#/components/schemas/Error/properties/error' },
          message: { $ref: '#/components/schemas/Error/properties/message' },
          failing: {
            type: 'array',
            items: { enum: ['plants', 'tokens'] },
            description: 'The stores that cannot serve now; none while the service shuts down.',
          },
        },
      },
      Error: {
        type: 'object',
        required: ['error', 'message'],
        additionalProperties: false,
        properties: {
          error: {
            type: 'integer',
            format: 'int32',
            description: 'Stable code; its first three digits are the HTTP status.',
          },
          message: { type: 'string', description: 'What was wrong, in words a caller can act on.' },
        },
      },
    },
  },
  'x-error-catalogue': ERROR_ROWS.map(({ status, code, when, header }) => ({
    status,
    error: code,
    when,
    ...(header && { headers: `${header.name}: ${header.rule}` }),
  })),
} as const;
