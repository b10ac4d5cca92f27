import { MAX_LIMIT, DEFAULT_LIMIT } from '../../domain/plant-service.js';
import { NAME_MAX, TAG_MAX } from '../../domain/plant.js';
import { MAX_PLANT_ID, MIN_PLANT_ID } from '../../domain/plant-id.js';
import { BODY_LIMIT_BYTES } from './json-body.js';

const errorResponse = (description: string, headers: Record<string, unknown> = {}) => ({
  description,
  headers,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

const authenticate = { 'WWW-Authenticate': { $ref: '#/components/headers/WWW-Authenticate' } };
const retryAfter = { 'Retry-After': { $ref: '#/components/headers/Retry-After' } };

const commonErrors = {
  '400': errorResponse(
    'Malformed bearer credentials (40005), or a field, query or path parameter that fails validation (40001-40004).',
    authenticate,
  ),
  '401': errorResponse(
    'No Bearer credentials (40101), or an unknown, revoked or expired token (40102).',
    authenticate,
  ),
  '403': errorResponse('The token lacks the scope this operation needs (40301).', authenticate),
  '405': errorResponse(
    'Method not allowed on this path (40501); `Allow` lists the methods that are.',
    {
      Allow: { schema: { type: 'string' } },
    },
  ),
  '429': errorResponse('Rate limit of the tenant exceeded (42901).', retryAfter),
  '500': errorResponse('Unexpected failure (50001); the message carries only a request id.'),
  '503': errorResponse(
    'Storage unreachable or timed out (50301); nothing was half-written.',
    retryAfter,
  ),
};

const textRule =
  'Unicode code points; no control characters (category Cc) and no unpaired surrogates.';
const noControl = '^[^\\u0000-\\u001f\\u007f-\\u009f]*$';

/** The OpenAPI 3.1 description of the whole contract, served at /openapi.json. */
export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'Plant store',
    version: '1.0.0',
    license: { name: 'MIT', identifier: 'MIT' },
    description: [
      'Keeps plants per tenant. Every `/plants` operation needs `Authorization: Bearer <token>`;',
      'a token stands for a tenant and the scopes `plants:read` (GET) and `plants:write` (POST, DELETE).',
      'Another tenant\'s plants are invisible: their ids answer "not found", never "forbidden".',
      '',
      'When several errors apply, the first failing check wins: route (404 40402, 405) -> credentials',
      '(400 40005, 401) -> rate limit (429) -> scope (403) -> media type (415) -> size (413) -> body syntax',
      '(400 40001) -> fields, query and path (400 40002-40004) -> the store (404 40401, 409, 503).',
      'Every error body is an `Error`; `error` is a stable code whose first three digits are the status.',
      'Requests refused by the HTTP parser itself answer 431 (43101, headers too large) or 400 (40000, not valid HTTP).',
    ].join('\n'),
  },
  servers: [{ url: '/' }],
  security: [{ bearerAuth: [] }],
  paths: {
    '/plants': {
      get: {
        operationId: 'listPlants',
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
              `treated as ${MAX_LIMIT}. Canonical decimal digits only; anything else, or the parameter given twice, is 400 (40003).`,
            schema: {
              type: 'integer',
              format: 'int32',
              minimum: 0,
              maximum: 2147483647,
              default: DEFAULT_LIMIT,
            },
          },
          {
            name: 'cursor',
            in: 'query',
            required: false,
            description:
              'Opaque position taken from a `Link: rel="next"` header; holds no server state and stays valid ' +
              'across restarts and instances. One that cannot be decoded is 400 (40003).',
            schema: { type: 'string' },
          },
        ],
        responses: {
          '200': {
            description: 'A page of plants (a plain array; never an id).',
            headers: {
              Link: {
                description:
                  'RFC 8288 link to the next page (`rel="next"`), present when more plants may follow.',
                schema: { type: 'string' },
              },
            },
            content: {
              'application/json': {
                schema: { type: 'array', items: { $ref: '#/components/schemas/Plant' } },
              },
            },
          },
          ...commonErrors,
        },
      },
      post: {
        operationId: 'createPlant',
        summary: "Create a plant in the caller's tenant",
        description:
          `Needs the scope \`plants:write\`. The body is at most ${BODY_LIMIT_BYTES} bytes of UTF-8 JSON. ` +
          '`id` is exact over the whole int64 range (9007199254740993 stays 9007199254740993); ' +
          'a JSON number with an integer value counts (`12`, `12.0`, `1.2e1`). Unknown fields are ignored and never stored.',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPlant' } } },
        },
        responses: {
          '200': {
            description: 'The plant as stored (name and tag; never the id).',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Plant' } } },
          },
          ...commonErrors,
          '409': errorResponse('A plant with this id already exists in the tenant (40901).'),
          '413': errorResponse(`Body larger than ${BODY_LIMIT_BYTES} bytes (41301).`),
          '415': errorResponse('Content-Type is not application/json (41501).'),
        },
      },
    },
    '/plants/{id}': {
      delete: {
        operationId: 'deletePlant',
        summary: "Delete one plant of the caller's tenant",
        description: 'Needs the scope `plants:write`.',
        parameters: [
          {
            name: 'id',
            in: 'path',
            required: true,
            description:
              'Canonical decimal int64: no sign on zero, no leading zeros. Anything else is 400 (40004).',
            schema: { type: 'string', pattern: '^-?(0|[1-9][0-9]*)$' },
          },
        ],
        responses: {
          '204': { description: 'Deleted; no body.' },
          ...commonErrors,
          '404': errorResponse("No plant with that id in the caller's tenant (40401)."),
        },
      },
    },
  },
  components: {
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        description:
          'Static tokens from PLANT_STORE_TOKENS, managed tokens issued by `plant-store tokens create` ' +
          '(`pst_...`), or JWTs from the configured identity provider (see the README). Each stands for ' +
          'a tenant and scopes (`plants:read`, `plants:write`).',
      },
    },
    headers: {
      'WWW-Authenticate': {
        description:
          'RFC 6750 challenge: `Bearer realm="plant-store"`, with `error` and `scope` where they apply.',
        schema: { type: 'string' },
      },
      'Retry-After': {
        description: 'Seconds to wait before trying again.',
        schema: { type: 'string' },
      },
    },
    schemas: {
      Plant: {
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: {
          name: {
            type: 'string',
            minLength: 1,
            maxLength: NAME_MAX,
            pattern: noControl,
            description: `The name of the plant. ${textRule}`,
          },
          tag: {
            type: 'string',
            minLength: 0,
            maxLength: TAG_MAX,
            pattern: noControl,
            description: `Tag that specifies the type of plant; an empty tag is kept. ${textRule}`,
          },
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
              'Identification number of the plant, unique per tenant; exact over the whole int64 range.',
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
} as const;
