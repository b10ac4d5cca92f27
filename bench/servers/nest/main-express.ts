import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { listeningLine } from '../../common.js';
import { AppModule } from './app.module.js';

// NestJS on Express (@nestjs/platform-express), as `nest new` lays it out: see app.module.ts.

const app = await NestFactory.create<NestExpressApplication>(AppModule, { bufferLogs: true });
app.useLogger(app.get(Logger));
const host = process.env.HOST ?? '127.0.0.1';
await app.listen(Number(process.env.PORT ?? 0), host);
console.error(listeningLine(host, (app.getHttpServer().address() as { port: number }).port));
process.on('SIGTERM', () => process.exit(0));
