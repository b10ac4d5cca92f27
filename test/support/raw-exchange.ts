import { connect } from 'node:net';
import type { HttpResponse } from './http-client.js';

/**
 * Sends `request` as raw bytes on a fresh connection and reads everything the server sends until
 * it closes (the request should say `Connection: close`); resolves the first final response, or
 * undefined when none came. The client does not half-close first: Node aborts a request whose
 * client half-closes before the answer.
 */
export function rawExchange(
  port: number,
  request: Buffer,
  timeoutMs: number,
): Promise<HttpResponse | undefined> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close within ${timeoutMs} ms; received ${Buffer.concat(chunks)}`));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseResponse(Buffer.concat(chunks)));
    });
    socket.on('connect', () => socket.write(request));
  });
}

/** The first final HTTP/1.1 response in `bytes` (body by Content-Length), or undefined. */
export function parseResponse(bytes: Buffer): HttpResponse | undefined {
  // Interim answers (100 Continue) go before the final one.
  const interim = /^(?:HTTP\/1\.1 1\d\d [^\r]*\r\n(?:[^\r]+\r\n)*\r\n)*/.exec(
    bytes.toString('latin1'),
  )![0].length;
  bytes = bytes.subarray(interim);
  const text = bytes.toString('latin1');
  const split = text.indexOf('\r\n\r\n');
  const status = /^HTTP\/1\.1 (\d{3}) /.exec(text);
  if (split === -1 || status === null) return undefined;
  const headers: Record<string, string> = {};
  for (const line of text.slice(0, split).split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  const body = bytes.subarray(split + 4, split + 4 + length).toString('utf8');
  return { status: Number(status[1]), headers, text: body };
}
