import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { HttpProblem } from '../http-problem.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/** The raw HTTP/1.1 bytes of a refusal that closes the connection, for a socket no response owns. */
export function rawAnswer(refusal: HttpProblem): string {
  const body = refusal.json();
  const extra = Object.entries(refusal.headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return (
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n${extra}` +
    `Content-Type: ${JSON_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `Connection: close\r\n\r\n${body}`
  );
}

/** Answers a refusal through Node's response object, outside Koa, and closes the connection. */
export function answer(res: ServerResponse, refusal: HttpProblem): void {
  const body = refusal.json();
  res.writeHead(refusal.status, {
    ...refusal.headers,
    'Content-Type': JSON_TYPE,
    'Content-Length': Buffer.byteLength(body),
    Connection: 'close',
  });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}
