import {
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants.js';
import { Histogram } from 'prom-client';
import type { Observable } from 'rxjs';

const duration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Duration of HTTP requests in seconds',
  labelNames: ['method', 'route', 'status_code'],
});

interface RawResponse {
  statusCode: number;
  once(event: 'finish', listener: () => void): unknown;
}

/**
 * The request-duration histogram per route: the route is the controller's and the handler's
 * path (read once per handler), the time runs until the response is finished, so that the status
 * is the one sent (exception filters answer after an interceptor's stream has ended).
 */
@Injectable()
export class RequestMetricsInterceptor implements NestInterceptor {
  private readonly routes = new WeakMap<object, string>();

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const started = performance.now();
    const http = context.switchToHttp();
    const { method } = http.getRequest<{ method: string }>();
    const response = http.getResponse<RawResponse | { raw: RawResponse }>();
    const raw = 'raw' in response ? response.raw : response;
    const route = this.routeOf(context);
    raw.once('finish', () => {
      duration.observe(
        { method, route, status_code: raw.statusCode },
        (performance.now() - started) / 1000,
      );
    });
    return next.handle();
  }

  private routeOf(context: ExecutionContext): string {
    const handler = context.getHandler();
    let route = this.routes.get(handler);
    if (route === undefined) {
      const parts = [context.getClass(), handler].map(
        (target) => Reflect.getMetadata(PATH_METADATA, target) as string,
      );
      route = `/${parts.filter((part) => part && part !== '/').join('/')}`;
      this.routes.set(handler, route);
    }
    return route;
  }
}
