import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { HttpProblem } from '../http-problem.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/** A refusal that closes its connection: its Error body (HttpProblem.json) and every header. */
function closingAnswer(refusal: HttpProblem): { body: string; headers: Record<string, string> } {
  const body = refusal.json();
  const headers = {
    ...refusal.headers,
    'Content-Type': JSON_TYPE,
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
  };
  return { body, headers };
}

/** The raw HTTP/1.1 bytes of a refusal that closes the connection, for a socket no response owns. */
export function rawAnswer(refusal: HttpProblem): string {
  const { body, headers } = closingAnswer(refusal);
  const lines = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n${lines}\r\n${body}`;
}

/** Answers a refusal through Node's response object, outside Koa, and closes the connection. */
export function answer(res: ServerResponse, refusal: HttpProblem): void {
  const { body, headers } = closingAnswer(refusal);
  res.writeHead(refusal.status, headers);
  res.end(res.req.method === 'HEAD' ? undefined : body);
}
