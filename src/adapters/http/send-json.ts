import type { Middleware } from 'koa';

export const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Answers with a JSON body, successes and errors alike, written at once: one `writeHead` with
 * every header and one `end` (`ctx.respond = false` takes Koa's own response step out, which would
 * otherwise set each header and sniff the body again). `ctx.status` still tells the middleware
 * around (logging, metrics) what was answered; headers they set before are kept, but none after
 * (so `Connection: close` for an unread body is set here, as the request observer does for the
 * rest). On HEAD, Node sends the headers only.
 */
export function sendJson(
  ctx: Parameters<Middleware>[0],
  status: number,
  json: string,
  headers?: Readonly<Record<string, string>>,
): void {
  ctx.status = status;
  ctx.respond = false;
  const { res } = ctx;
  if (res.headersSent) return;
  const own: Record<string, string | number> = {
    'content-type': JSON_TYPE,
    'content-length': Buffer.byteLength(json),
  };
  // Written here, the answer leaves before the request observer could add its header afterwards.
  if (!ctx.req.complete) own.connection = 'close';
  res.writeHead(status, headers === undefined ? own : { ...headers, ...own });
  res.end(json);
}
