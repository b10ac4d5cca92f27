import type { Middleware } from 'koa';
import type { ObservedState } from './request-observer.js';

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
  const state = ctx.state as ObservedState;
  const length = Buffer.byteLength(json);
  state.size = length;
  const own: Record<string, string | number> = {
    'content-type': JSON_TYPE,
    'content-length': length,
  };
  // The request observer's id; given here, the head is written in one pass (no header was set
  // before), rather than Node merging it into headers set one by one.
  if (state.requestId !== undefined) own['x-request-id'] = state.requestId;
  // Written here, the answer leaves before the request observer could add its header afterwards.
  if (!ctx.req.complete) own.connection = 'close';
  res.writeHead(status, headers === undefined ? own : { ...headers, ...own });
  res.end(json);
}
