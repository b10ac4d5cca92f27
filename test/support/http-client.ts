import { Agent, request, type IncomingHttpHeaders } from 'node:http';

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body's bytes as received (e.g. still compressed). */
  bytes?: Buffer;
}

export interface RequestOptions {
  /** Raw header pairs, sent as given (repeats allowed). */
  headers?: [string, string][];
  body?: string | Buffer;
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** A plain HTTP request on loopback, with full control of headers and body bytes. */
export function send(
  port: number,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<HttpResponse> {
  // Raw header lists get no defaults from Node, so Host (required by HTTP/1.1) is added here.
  const headers = ['Host', `127.0.0.1:${port}`, ...(options.headers ?? []).flat()];
  if (options.body !== undefined)
    headers.push('Content-Length', String(Buffer.byteLength(options.body)));
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        resolve({
          status: res.statusCode!,
          headers: res.headers,
          text: bytes.toString('utf8'),
          bytes,
        });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}
