import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { listeningLine } from '../../common.js';
import { requestId } from '../token-digests.js';
import { AppModule } from './app.module.js';

// NestJS on Fastify (@nestjs/platform-fastify): the same module as on Express (app.module.ts).
// Fastify gives every request its id before any Nest middleware runs (pino-http then keeps it), so
// the contract's request id is Fastify's `genReqId`, sent back by an onRequest hook.

const adapter = new FastifyAdapter({
  bodyLimit: 65536,
  requestIdHeader: false,
  genReqId: (request: IncomingMessage) => requestId(request.headers['x-request-id'], randomUUID),
});
adapter.getInstance().addHook('onRequest', async (request, reply) => {
  reply.header('x-request-id', request.id);
});
const app = await NestFactory.create<NestFastifyApplication>(AppModule, adapter, {
  bufferLogs: true,
});
app.useLogger(app.get(Logger));
const host = process.env.HOST ?? '127.0.0.1';
await app.listen(Number(process.env.PORT ?? 0), host);
console.error(listeningLine(host, (app.getHttpServer().address() as { port: number }).port));
process.on('SIGTERM', () => process.exit(0));
