import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listeningLine } from '../common.js';
import { authorize, loadTokens, parseLimit, RefStore, validPlant } from './reference-store.js';

// Bare node:http: the same work as the service, written plainly.

const tokens = loadTokens();
const store = new RefStore();
const BODY_LIMIT = 65536;

function send(res: ServerResponse, status: number, value: unknown): void {
  const json = JSON.stringify(value);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(json),
  });
  res.end(json);
}

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT) resolve(undefined);
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  if (path !== '/plants') return send(res, 404, { error: 40402, message: 'no route' });

  if (req.method === 'GET') {
    const caller = authorize(tokens, req.headers.authorization, 'plants:read');
    if (typeof caller === 'number')
      return send(res, caller, { error: caller * 100 + 1, message: 'not allowed' });
    const limit = parseLimit(
      q === -1 ? undefined : new URLSearchParams(url.slice(q + 1)).get('limit'),
    );
    if (limit === undefined) return send(res, 400, { error: 40003, message: 'bad limit' });
    return send(res, 200, store.list(caller.tenant, limit));
  }
  if (req.method === 'POST') {
    const caller = authorize(tokens, req.headers.authorization, 'plants:write');
    if (typeof caller === 'number')
      return send(res, caller, { error: caller * 100 + 1, message: 'not allowed' });
    if (!req.headers['content-type']?.startsWith('application/json')) {
      return send(res, 415, { error: 41501, message: 'not JSON' });
    }
    const text = await readBody(req);
    if (text === undefined) return send(res, 413, { error: 41301, message: 'too large' });
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return send(res, 400, { error: 40001, message: 'bad JSON' });
    }
    const input = validPlant(body);
    if (input === undefined) return send(res, 400, { error: 40002, message: 'bad plant' });
    if (!store.insert(caller.tenant, input.id, input.plant)) {
      return send(res, 409, { error: 40901, message: 'duplicate' });
    }
    return send(res, 200, input.plant);
  }
  res.setHeader('Allow', 'GET, POST');
  return send(res, 405, { error: 40501, message: 'method not allowed' });
}

const host = process.env.HOST ?? '127.0.0.1';
const server = createServer((req, res) => {
  handle(req, res).catch(() => send(res, 500, { error: 50001, message: 'unexpected failure' }));
});
server.listen(Number(process.env.PORT ?? 0), host, () => {
  console.error(listeningLine(host, (server.address() as { port: number }).port));
});
process.on('SIGTERM', () => process.exit(0));
