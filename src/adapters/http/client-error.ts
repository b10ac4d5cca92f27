import type { Socket } from 'node:net';

const answer = (status: string, code: number, message: string): string => {
  const body = JSON.stringify({ error: code, message });
  return (
    `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
};

const HEADERS_TOO_LARGE = answer(
  '431 Request Header Fields Too Large',
  43101,
  'request headers are too large',
);
const MALFORMED = answer('400 Bad Request', 40000, 'malformed HTTP request');

/**
 * For node:http's 'clientError': requests Node refuses before Koa sees them (unparsable, headers
 * over the limit) still get an Error body instead of a bare status line.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (socket.writable && error.code !== 'ECONNRESET') {
    socket.end(error.code === 'HPE_HEADER_OVERFLOW' ? HEADERS_TOO_LARGE : MALFORMED);
  } else {
    socket.destroy();
  }
}
