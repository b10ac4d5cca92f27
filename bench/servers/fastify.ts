import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { listeningLine } from '../common.js';
import {
  authorize,
  loadTokens,
  parseLimit,
  RefStore,
  validPlant,
  type RefCaller,
} from './reference-store.js';

// Fastify with its built-in JSON body parser and serializer: the same work as the service, plainly.

const tokens = loadTokens();
const store = new RefStore();
const app = Fastify({ logger: false, bodyLimit: 65536 });

app.decorateRequest('caller', null);
declare module 'fastify' {
  interface FastifyRequest {
    caller: RefCaller | null;
  }
}

const requireScope = (scope: string) => async (request: FastifyRequest, reply: FastifyReply) => {
  const caller = authorize(tokens, request.headers.authorization, scope);
  if (caller === 401 || caller === 403) {
    return reply.code(caller).send({ error: caller * 100 + 1, message: 'not allowed' });
  }
  request.caller = caller;
};

app.get<{ Querystring: { limit?: string } }>(
  '/plants',
  { preHandler: requireScope('plants:read') },
  async (request, reply) => {
    const limit = parseLimit(request.query.limit);
    if (limit === undefined) return reply.code(400).send({ error: 40003, message: 'bad limit' });
    return store.list(request.caller!.tenant, limit);
  },
);

app.post('/plants', { preHandler: requireScope('plants:write') }, async (request, reply) => {
  const input = validPlant(request.body);
  if (input === undefined) return reply.code(400).send({ error: 40002, message: 'bad plant' });
  if (!store.insert(request.caller!.tenant, input.id, input.plant)) {
    return reply.code(409).send({ error: 40901, message: 'duplicate' });
  }
  return input.plant;
});

const host = process.env.HOST ?? '127.0.0.1';
app.listen({ port: Number(process.env.PORT ?? 0), host }).then(
  () => console.error(listeningLine(host, (app.server.address() as { port: number }).port)),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
process.on('SIGTERM', () => process.exit(0));
