import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { buildContainer, loadConfig, TOKENS, type Wiring } from '../../src/index.js';
import { send } from '../support/http-client.js';

const run = promisify(execFile);

describe('embedding the library', () => {
  it('when a plain Node program uses the core through src/index.ts, then the use cases work without HTTP', async () => {
    const program = new URL('./programs/core-without-http.ts', import.meta.url).pathname;

    const { stdout } = await run(process.execPath, ['--import', 'tsx', program], {
      timeout: 15000,
    });

    expect(JSON.parse(stdout)).to.deep.equal({
      page: [{ name: 'Fern' }, { name: 'Monstera', tag: 'aroid' }],
      refused: 'duplicate-plant',
      after: [{ name: 'Monstera', tag: 'aroid' }],
    });
  });

  describe('when a host node:http server mounts the Koa app beside its own routes', () => {
    const token = 'host-embedding-token-0123456789';
    let wiring: Wiring;
    let server: Server;
    let port: number;

    before(async () => {
      const config = loadConfig({
        PLANT_STORE_TOKENS: JSON.stringify([
          { token, tenant: 'host', scopes: ['plants:read', 'plants:write'] },
        ]),
        LOG_LEVEL: 'silent',
      });
      wiring = await buildContainer(config);
      const plants = (await wiring.container.getAsync(TOKENS.HttpApp)).callback();
      server = createServer((req, res) => {
        if (req.url === '/host/status') return res.end('host ok');
        return plants(req, res);
      }).listen(0, '127.0.0.1');
      await once(server, 'listening');
      port = (server.address() as { port: number }).port;
    });
    after(async () => {
      server.closeAllConnections();
      server.close();
      await wiring.dispose();
    });

    it('then the host route and the plant API answer on one server', async () => {
      const auth: [string, string][] = [['Authorization', `Bearer ${token}`]];
      const created = await send(port, 'POST', '/plants', {
        headers: [...auth, ['Content-Type', 'application/json']],
        body: '{"id":1,"name":"Embedded"}',
      });
      const listed = await send(port, 'GET', '/plants', { headers: auth });
      const host = await send(port, 'GET', '/host/status');

      expect([created.status, created.text]).to.deep.equal([200, '{"name":"Embedded"}']);
      expect([listed.status, listed.text]).to.deep.equal([200, '[{"name":"Embedded"}]']);
      expect([host.status, host.text]).to.deep.equal([200, 'host ok']);
    });
  });
});
