import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { expect } from 'chai';
import Koa from 'koa';
import mount from 'koa-mount';
import { Counter, Registry } from 'prom-client';
import {
  buildService,
  ConfigError,
  loadConfig,
  TYPES,
  type Container,
  type Service,
} from '../../../src/index.js';
import { send } from '../../support/http-client.js';
import { runProgram } from '../../support/service-process.js';

describe('embedding the library', () => {
  it('when a plain Node program uses the core through src/index.ts, then the use cases work without HTTP', async () => {
    const { code, stdout, stderr } = await runProgram([
      'test/e2e/embedding/support/core-without-http.ts',
    ]);

    expect(code, stderr).to.equal(0);
    expect(JSON.parse(stdout)).to.deep.equal({
      page: [{ name: 'Fern' }, { name: 'Monstera', tag: 'aroid' }],
      refused: 'duplicate-plant',
      after: [{ name: 'Monstera', tag: 'aroid' }],
    });
  });

  describe('when a host node:http server mounts the Koa app beside its own routes', () => {
    const token = 'host-embedding-token-0123456789';
    const directory = mkdtempSync(join(tmpdir(), 'plant-store-embedding-'));
    let service: Service;
    let server: Server;
    let port: number;

    before(async () => {
      const config = loadConfig({
        PLANT_STORE_TOKENS: JSON.stringify([
          { token, tenant: 'host', scopes: ['plants:read', 'plants:write'] },
        ]),
        LOG_LEVEL: 'silent',
        PLANT_STORE_STORAGE: 'memory',
      });
      service = await buildService(config);
      const plants = service.app.callback();
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
      await service.close();
      rmSync(directory, { recursive: true, force: true });
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

    it('then a token the host issues through service.tokenAdministration reaches the plant API', async () => {
      const issued = await service.tokenAdministration.issue({
        tenant: 'host',
        scopes: ['plants:read'],
      });

      const listed = await send(port, 'GET', '/plants', {
        headers: [['Authorization', `Bearer ${issued.token}`]],
      });

      expect(listed.status).to.equal(200);
      expect(issued.summary).to.include({ tenant: 'host' }).and.not.have.property('digest');
    });
  });

  describe('when a host Koa app mounts the service under /api with koa-mount', () => {
    const token = 'host-mounting-token-0123456789';
    let service: Service;
    let server: Server;
    let port: number;
    const auth: [string, string][] = [['Authorization', `Bearer ${token}`]];

    before(async () => {
      service = await buildService(
        loadConfig({
          PLANT_STORE_STORAGE: 'memory',
          PLANT_STORE_TOKENS: JSON.stringify([
            { token, tenant: 'mounted', scopes: ['plants:read', 'plants:write'] },
          ]),
          LOG_LEVEL: 'silent',
        }),
      );
      const host = new Koa();
      host.use(mount('/api', service.app));
      server = createServer(host.callback()).listen(0, '127.0.0.1');
      await once(server, 'listening');
      port = (server.address() as { port: number }).port;
    });
    after(async () => {
      server.closeAllConnections();
      server.close();
      await service.close();
    });

    it('then the served document names the prefix as its server, and the root one does not', async () => {
      const mounted = await send(port, 'GET', '/api/openapi.json');
      const direct = await send(port, 'GET', '/openapi.json');

      expect(mounted.status).to.equal(200);
      expect(JSON.parse(mounted.text).servers).to.deep.equal([{ url: '/api' }]);
      expect(direct.status).to.equal(404);
    });

    it('then the plant API answers under the prefix and its next link keeps the prefix', async () => {
      for (const id of [1, 2]) {
        const created = await send(port, 'POST', '/api/plants', {
          headers: [...auth, ['Content-Type', 'application/json']],
          body: `{"id":${id},"name":"Mounted ${id}"}`,
        });
        expect(created.status).to.equal(200);
      }

      const page = await send(port, 'GET', '/api/plants?limit=1', { headers: auth });

      expect(page.status).to.equal(200);
      expect(page.headers.link).to.match(/^<\/api\/plants\?limit=1&cursor=[^>]+>; rel="next"$/);
    });
  });

  describe('when the host has variables of its own', () => {
    const directory = mkdtempSync(join(tmpdir(), 'plant-store-embedded-env-'));
    after(() => rmSync(directory, { recursive: true, force: true }));
    const token = 'embedded-env-token-0123456789';
    // The host's own LOG_LEVEL and PORT, which mean something else to it.
    const hostEnv = {
      LOG_LEVEL: 'verbose',
      PORT: 'http://0.0.0.0:3000',
      HOST: 'host.example',
      PLANT_STORE_TOKENS: JSON.stringify([{ token, tenant: 'env', scopes: ['plants:read'] }]),
      PLANT_STORE_STORAGE: 'memory',
    };

    it('then loadConfig(env) refuses them, naming the variable', () => {
      expect(() => loadConfig(hostEnv))
        .to.throw(ConfigError)
        .with.property('message')
        .that.matches(/^LOG_LEVEL must be one of/);
    });

    it('then loadConfig(env, { embedded: true }) leaves them to the host and the service serves', async () => {
      const config = loadConfig(hostEnv, { embedded: true });
      expect([config.logLevel, config.port, config.host]).to.deep.equal([
        'info',
        8080,
        '127.0.0.1',
      ]);
      const service = await buildService(config, (container: Container) => {
        container.rebind(TYPES.Logger).toConstantValue(silent);
      });
      try {
        const answer = await request(service, '/plants', token);
        expect([answer.status, answer.text]).to.deep.equal([200, '[]']);
      } finally {
        await service.close();
      }
    });
  });

  describe('when two services share a host registry and prefix (a test suite builds one per test)', () => {
    const directory = mkdtempSync(join(tmpdir(), 'plant-store-shared-registry-'));
    after(() => rmSync(directory, { recursive: true, force: true }));
    const token = 'shared-registry-token-0123456789';
    const config = loadConfig({
      PLANT_STORE_TOKENS: JSON.stringify([{ token, tenant: 'metrics', scopes: ['plants:read'] }]),
      PLANT_STORE_STORAGE: 'memory',
    });
    const onRegistry = (registry: Registry) => (container: Container) => {
      container.rebind(TYPES.Logger).toConstantValue(silent);
      container
        .rebind(TYPES.MetricsOptions)
        .toConstantValue({ registry, prefix: 'host_plants_', defaultMetrics: true });
    };

    it('then the second builds too, and both count into the same series once', async () => {
      const registry = new Registry();
      const first = await buildService(config, onRegistry(registry));
      const second = await buildService(config, onRegistry(registry));
      try {
        await request(first, '/plants', token);
        await request(second, '/plants', token);

        const names = (await registry.getMetricsAsJSON()).map((metric) => metric.name);
        expect(new Set(names).size).to.equal(names.length);
        expect(names).to.include.members([
          'host_plants_http_requests_in_flight',
          'host_plants_process_cpu_user_seconds_total',
        ]);
        expect(await registry.metrics()).to.match(
          /host_plants_http_request_duration_seconds_count\{method="GET",route="\/plants",status_class="2xx"\} 2\n/,
        );
      } finally {
        await first.close();
        await second.close();
      }
    });

    it('then a metric of another owner under one of its names is refused with the way out', async () => {
      const registry = new Registry();
      new Counter({
        name: 'host_plants_quota_refused_total',
        help: 'the host counts something else',
        registers: [registry],
      });
      const refused = await buildService(config, onRegistry(registry)).then(
        () => expect.fail('the service was built over a foreign metric'),
        (error: Error) => error.message,
      );
      expect(refused).to.equal(
        'metric host_plants_quota_refused_total is already registered by another owner; give the service another prefix (TYPES.MetricsOptions)',
      );
    });
  });
});

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** One GET through the service's own callback on a server of the test's. */
async function request(service: Service, path: string, token: string) {
  const server = createServer(service.app.callback()).listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as { port: number };
    return await send(port, 'GET', path, { headers: [['Authorization', `Bearer ${token}`]] });
  } finally {
    server.closeAllConnections();
    server.close();
  }
}
