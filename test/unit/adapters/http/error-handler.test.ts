import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { expect } from 'chai';
import { StaticTokenVerifier } from '../../../../src/adapters/auth/static-token-verifier.js';
import { createHttpApp } from '../../../../src/adapters/http/app.js';
import { MemoryPlantStore } from '../../../../src/adapters/storage/memory/memory-plant-store.js';
import { PlantError } from '../../../../src/domain/errors.js';
import { PlantService } from '../../../../src/application/plant-service.js';
import type { PlantStore } from '../../../../src/ports/plant-store.js';
import { send } from '../../../support/http-client.js';
import { expectError } from '../../../support/http-harness.js';

const TOKEN = 'failure-tests-token-0123456789';
const auth: [string, string][] = [['Authorization', `Bearer ${TOKEN}`]];

/** The memory store with one method replaced by a failure the real adapters can raise. */
function failing(method: 'insert' | 'list' | 'delete' | 'ping', error: Error): PlantStore {
  const store = new MemoryPlantStore();
  store[method] = async () => {
    throw error;
  };
  return store;
}

describe('HTTP failure mapping', () => {
  const logged: object[] = [];
  const logger = {
    debug() {},
    info() {},
    warn() {},
    error: (fields: object) => logged.push(fields),
  };
  let server: Server;

  async function serve(store: PlantStore, rateLimit = 0): Promise<number> {
    const tokens = new StaticTokenVerifier([
      { token: TOKEN, tenant: 't', scopes: ['plants:read', 'plants:write'] },
    ]);
    const app = createHttpApp({
      plants: new PlantService(store),
      tokenVerifier: tokens,
      readiness: [{ name: 'plants', ping: () => store.ping() }],
      logger,
      rateLimit,
    });
    server = createServer(app.callback()).listen(0, '127.0.0.1');
    await once(server, 'listening');
    return (server.address() as { port: number }).port;
  }
  afterEach(() => {
    server.closeAllConnections();
    server.close();
    logged.length = 0;
  });

  it('when the store is unavailable, then 503 50301 with Retry-After, for reads, writes and readiness', async () => {
    const port = await serve(
      failing('list', new PlantError('storage-unavailable', 'storage is unavailable')),
    );

    const response = await send(port, 'GET', '/plants', { headers: auth });

    expectError(response, 503, 50301);
    expect(Number(response.headers['retry-after'])).to.be.at.least(1);
  });

  it('when readiness finds the store unavailable, then /readyz answers 503 50301 naming the plant store', async () => {
    const port = await serve(
      failing('ping', new PlantError('storage-unavailable', 'storage is unavailable')),
    );

    const response = await send(port, 'GET', '/readyz');

    expect(response.status).to.equal(503);
    expect(response.headers['retry-after']).to.equal('1');
    expect(JSON.parse(response.text)).to.deep.equal({
      error: 50301,
      message: 'storage is unavailable',
      failing: ['plants'],
    });
  });

  it('when something unexpected fails, then 500 50001 carries only a request id, and the details are logged', async () => {
    const port = await serve(
      failing('insert', new Error('driver exploded at 10.0.0.7 with secret=hunter2')),
    );

    const response = await send(port, 'POST', '/plants', {
      headers: [...auth, ['Content-Type', 'application/json']],
      body: '{"id":1,"name":"x"}',
    });

    const body = expectError(response, 500, 50001);
    const requestId = /request id ([0-9a-f-]{36})$/.exec(body.message)?.[1];
    expect(requestId).to.be.a('string').and.equal(response.headers['x-request-id']);
    expect(response.text).to.not.include('exploded').and.not.include('hunter2');
    expect(logged).to.have.length(1);
    expect(logged[0]).to.include({ requestId });
  });

  it('when a tenant exceeds the rate limit, then 429 42901 with Retry-After, and other tenants are not affected', async () => {
    const port = await serve(new MemoryPlantStore(), 3);

    const statuses = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await send(port, 'GET', '/plants', { headers: auth })).status);
    const limited = await send(port, 'GET', '/plants', { headers: auth });

    expect(statuses.slice(0, 3)).to.deep.equal([200, 200, 200]);
    expectError(limited, 429, 42901);
    expect(Number(limited.headers['retry-after'])).to.be.at.least(1);
  });
});
