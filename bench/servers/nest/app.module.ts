import { randomUUID } from 'node:crypto';
import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { LoggerModule } from 'nestjs-pino';
import { requestId } from '../token-digests.js';
import { PlantsController } from './plants.controller.js';
import { PlantsService } from './plants.service.js';
import { RequestMetricsInterceptor } from './request-metrics.interceptor.js';

interface RawRequest {
  headers: Record<string, string | string[] | undefined>;
}
interface RawResponse {
  setHeader(name: string, value: string): unknown;
}

@Module({
  imports: [
    // nestjs-pino: pino-http writes one JSON line per request when its response finishes. The
    // request id is the caller's well-formed X-Request-Id or a fresh UUID, sent back in the header.
    // The line carries the fields of the service's line, not pino-http's default dump of every
    // request and response header, so that the two lines cost alike.
    LoggerModule.forRoot({
      // The controller's routes (the default catch-all `{/*splat}` matched nothing on Fastify).
      forRoutes: [PlantsController],
      pinoHttp: {
        genReqId: (request: RawRequest, response: RawResponse) => {
          const id = requestId(request.headers['x-request-id'], randomUUID);
          response.setHeader('X-Request-Id', id);
          return id;
        },
        serializers: {
          req: (request: { id: string; method: string; url: string }) => ({
            id: request.id,
            method: request.method,
            url: request.url,
          }),
          res: (response: { statusCode: number }) => ({ statusCode: response.statusCode }),
        },
      },
    }),
  ],
  controllers: [PlantsController],
  providers: [PlantsService, { provide: APP_INTERCEPTOR, useClass: RequestMetricsInterceptor }],
})
export class AppModule {}
