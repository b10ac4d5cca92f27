import cors from '@koa/cors';
import type { Middleware } from 'koa';

/**
 * CORS for pages of the given origins (`*`: any) with @koa/cors: preflights answered 204 with the
 * methods and request headers the API takes; the headers a page needs to read exposed (`Link` to
 * follow pages, `Retry-After`, `WWW-Authenticate` and `X-Request-Id` to read errors). A request
 * from another origin gets no CORS header, so the browser keeps the answer from the page (and a
 * preflight of it goes on to the routes: 405). No credentials: the token is a header, not a cookie.
 */
export function corsFor(origins: '*' | readonly string[]): Middleware {
  const allowed = new Set(origins);
  return cors({
    origin:
      origins === '*' ? '*' : (ctx) => (allowed.has(ctx.get('Origin')) ? ctx.get('Origin') : ''),
    allowMethods: ['GET', 'HEAD', 'POST', 'DELETE'],
    allowHeaders: ['Authorization', 'Content-Type', 'X-Request-Id'],
    exposeHeaders: ['Link', 'Retry-After', 'WWW-Authenticate', 'X-Request-Id'],
    // Browsers may reuse a preflight for 10 minutes (Chromium caps it at 2 hours).
    maxAge: 600,
  });
}
