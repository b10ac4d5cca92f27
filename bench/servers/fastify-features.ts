import { randomUUID } from 'node:crypto';
import Fastify, {
  LogController,
  type FastifyError,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { Histogram } from 'prom-client';
import { listeningLine } from '../common.js';
import { parseLimit, RefStore, type RefCaller } from './reference-store.js';
import { authenticate, loadTokenDigests, pathId, REFUSALS, requestId } from './token-digests.js';

// Fastify with the service's per-request features, written as Fastify's documentation writes
// them: its own pino logger on (one line per request: Fastify's "request completed", with the
// method and URL its "incoming request" line would have carried, through a LogController), the
// request id by `genReqId` and echoed in `X-Request-Id`, an `onRequest` hook that looks the
// bearer token up by its SHA-256 digest, JSON schemas for the body and the answers (ajv and
// fast-json-stringify), and a prom-client request-duration histogram per route.

const tokens = loadTokenDigests();
const store = new RefStore();
const duration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Duration of HTTP requests in seconds',
  labelNames: ['method', 'route', 'status_code'],
});

// One line per request, as the service writes: the completed line carries what the incoming one had.
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}
  override requestCompleted(
    error: Error | null,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const fields = {
      method: request.method,
      url: request.url,
      statusCode: reply.statusCode,
      responseTime: reply.elapsedTime,
    };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else reply.log.info(fields, 'request completed');
  }
}

const app = Fastify({
  logger: { level: 'info' },
  logController: new OneLinePerRequest(),
  bodyLimit: 65536,
  requestIdHeader: false,
  genReqId: (request) => requestId(request.headers['x-request-id'], randomUUID),
});

declare module 'fastify' {
  interface FastifyRequest {
    caller: RefCaller | null;
  }
  interface FastifyContextConfig {
    scope?: string;
  }
}
app.decorateRequest('caller', null);

app.addHook('onRequest', async (request, reply) => {
  reply.header('x-request-id', request.id);
  const scope = request.routeOptions.config.scope;
  if (scope === undefined) return;
  const auth = authenticate(tokens, request.headers.authorization, scope);
  if ('status' in auth) return reply.code(auth.status).send(auth.body);
  request.caller = auth.caller;
});

app.addHook('onResponse', async (request, reply) => {
  duration.observe(
    {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status_code: reply.statusCode,
    },
    reply.elapsedTime / 1000,
  );
});

// A body that fails its schema is the contract's 400 40002; other errors keep Fastify's answer.
app.setErrorHandler<FastifyError>((error, _request, reply) => {
  if (error.validation !== undefined) return reply.code(400).send(REFUSALS.badPlant);
  return reply.send(error);
});

const plant = {
  type: 'object',
  properties: { name: { type: 'string' }, tag: { type: 'string' } },
  required: ['name'],
} as const;
const errorBody = {
  type: 'object',
  properties: { error: { type: 'integer' }, message: { type: 'string' } },
} as const;

app.get<{ Querystring: { limit?: string } }>(
  '/plants',
  {
    config: { scope: 'plants:read' },
    schema: { response: { 200: { type: 'array', items: plant }, '4xx': errorBody } },
  },
  async (request, reply) => {
    const limit = parseLimit(request.query.limit);
    if (limit === undefined) return reply.code(400).send(REFUSALS.badLimit);
    return store.list(request.caller!.tenant, limit);
  },
);

app.post<{ Body: { id: number; name: string; tag?: string } }>(
  '/plants',
  {
    config: { scope: 'plants:write' },
    schema: {
      body: {
        type: 'object',
        properties: {
          id: { type: 'integer' },
          name: { type: 'string', minLength: 1, maxLength: 256 },
          tag: { type: 'string', maxLength: 64 },
        },
        required: ['id', 'name'],
      },
      response: { 200: plant, '4xx': errorBody },
    },
  },
  async (request, reply) => {
    const { id, name, tag } = request.body;
    const created = tag === undefined ? { name } : { name, tag };
    if (!store.insert(request.caller!.tenant, id, created)) {
      return reply.code(409).send(REFUSALS.duplicate(id));
    }
    return created;
  },
);

app.delete<{ Params: { id: string } }>(
  '/plants/:id',
  { config: { scope: 'plants:write' }, schema: { response: { '4xx': errorBody } } },
  async (request, reply) => {
    const id = pathId(request.params.id);
    if (id === undefined) return reply.code(400).send(REFUSALS.badId);
    if (!store.remove(request.caller!.tenant, id)) {
      return reply.code(404).send(REFUSALS.notFound(request.params.id));
    }
    return reply.code(204).send();
  },
);

const host = process.env.HOST ?? '127.0.0.1';
app.listen({ port: Number(process.env.PORT ?? 0), host }).then(
  () => console.error(listeningLine(host, (app.server.address() as { port: number }).port)),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
process.on('SIGTERM', () => process.exit(0));
