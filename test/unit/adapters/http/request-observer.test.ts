import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { expect } from 'chai';
import { StaticTokenVerifier } from '../../../../src/adapters/auth/static-token-verifier.js';
import { createHttpApp } from '../../../../src/adapters/http/app.js';
import { MemoryPlantStore } from '../../../../src/adapters/storage/memory/memory-plant-store.js';
import { PlantService } from '../../../../src/application/plant-service.js';
import { send, type HttpResponse } from '../../../support/http-client.js';

const TOKEN = 'observer-tests-token-0123456789';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('Request observer: request ids and the access log', () => {
  const lines: { level: string; fields: Record<string, unknown>; message?: string }[] = [];
  const at =
    (level: string) =>
    (fields: object, message?: string): void => {
      lines.push({ level, fields: fields as Record<string, unknown>, ...(message && { message }) });
    };
  const logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  let server: Server;
  let port: number;

  async function serve(accessLog: boolean): Promise<void> {
    const store = new MemoryPlantStore();
    const app = createHttpApp({
      plants: new PlantService(store),
      tokenVerifier: new StaticTokenVerifier([
        { token: TOKEN, tenant: 't', scopes: ['plants:read'] },
      ]),
      readiness: [{ name: 'plants', ping: () => store.ping() }],
      logger,
      accessLog,
    });
    server = createServer(app.callback()).listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as { port: number }).port;
  }
  const withId = (path: string, id: string): Promise<HttpResponse> =>
    send(port, 'GET', path, { headers: [['X-Request-Id', id]] });
  afterEach(() => {
    server.closeAllConnections();
    server.close();
    lines.length = 0;
  });

  it('when an X-Request-Id is well formed (1 to 128 of A-Z a-z 0-9 . _ : -), then it is echoed; otherwise a fresh UUID', async () => {
    await serve(true);
    const longest = 'a'.repeat(127) + ':';

    const kept = await withId('/healthz', longest);
    const tooLong = await withId('/healthz', `${longest}b`);
    const spaced = await withId('/healthz', 'two words');
    const absent = await send(port, 'GET', '/healthz');

    expect(kept.headers['x-request-id']).to.equal(longest);
    for (const answer of [tooLong, spaced, absent]) {
      expect(answer.headers['x-request-id']).to.match(UUID);
    }
    expect(new Set([tooLong, spaced, absent].map((a) => a.headers['x-request-id'])).size).to.equal(
      3,
    );
  });

  it('when a request is refused (401, 405) or not found, then the answer still carries its id and the log line its error code', async () => {
    await serve(true);

    const unauthorized = await withId('/plants', 'id-401');
    const notAllowed = await send(port, 'PUT', '/plants', {
      headers: [['X-Request-Id', 'id-405']],
    });

    expect([unauthorized.status, unauthorized.headers['x-request-id']]).to.deep.equal([
      401,
      'id-401',
    ]);
    expect([notAllowed.status, notAllowed.headers['x-request-id']]).to.deep.equal([405, 'id-405']);
    const access = lines.filter((line) => line.message === 'request').map((line) => line.fields);
    expect(
      access.map(({ requestId, status, error, route }) => ({ requestId, status, error, route })),
    ).to.deep.equal([
      { requestId: 'id-401', status: 401, error: 40101, route: '/plants' },
      { requestId: 'id-405', status: 405, error: 40501, route: undefined },
    ]);
    expect(access.every((fields) => !('tenant' in fields) || fields.tenant === undefined)).to.equal(
      true,
    );
  });

  it('when the access log is off, then requests write no line, and ids are still given', async () => {
    await serve(false);

    const answer = await withId('/healthz', 'quiet-1');

    expect(answer.headers['x-request-id']).to.equal('quiet-1');
    expect(lines).to.deep.equal([]);
  });
});
