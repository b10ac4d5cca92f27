import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import Koa from 'koa';
import compress from 'koa-compress';
import mount from 'koa-mount';
import { collectDefaultMetrics, Counter, Registry } from 'prom-client';
import {
  buildContainer,
  buildService,
  loadConfig,
  MemoryPlantStore,
  PlantError,
  resolveService,
  TYPES,
  type Logger,
  type PlantStore,
  type Service,
} from '../../../src/index.js';
import { send, type HttpResponse } from '../../support/http-client.js';

const WRITER = 'host-writer-token-0123456789';
const READER = 'host-reader-token-0123456789';
const METRICS = 'host-metrics-token-0123456789';

function configFor(extra: Record<string, string> = {}) {
  return loadConfig({
    PLANT_STORE_STORAGE: 'memory',
    PLANT_STORE_TOKENS: JSON.stringify([
      { token: WRITER, tenant: 'host', scopes: ['plants:read', 'plants:write'] },
      { token: READER, tenant: 'host', scopes: ['plants:read'] },
      { token: METRICS, tenant: 'host', scopes: ['metrics:read'] },
      { token: `${WRITER}-down`, tenant: 'down', scopes: ['plants:read', 'plants:write'] },
    ]),
    LOG_LEVEL: 'silent',
    ...extra,
  });
}

/** The memory store, except that tenant `down` finds the store unavailable (a 503). */
function storeWithAnOutage(): PlantStore {
  const store = new MemoryPlantStore();
  const down = () => Promise.reject(new PlantError('storage-unavailable', 'the store is down'));
  return {
    insert: (tenant, plant, event) =>
      tenant === 'down' ? down() : store.insert(tenant, plant, event),
    get: (tenant, id) => (tenant === 'down' ? down() : store.get(tenant, id)),
    list: (tenant, after, limit, tags) =>
      tenant === 'down' ? down() : store.list(tenant, after, limit, tags),
    delete: (tenant, id) => (tenant === 'down' ? down() : store.delete(tenant, id)),
    tenants: (after, limit) => store.tenants(after, limit),
    importBatch: (tenant, plants, overwrite) =>
      tenant === 'down' ? down() : store.importBatch(tenant, plants, overwrite),
    ping: () => store.ping(),
  };
}

/** A host Koa server around `app`: its own header set after `await next()`, and compression. */
async function hostServer(app: Koa): Promise<{ server: Server; port: number }> {
  const host = new Koa();
  host.use(async (ctx, next) => {
    await next();
    ctx.set('X-Host-After', 'seen');
  });
  host.use(compress({ threshold: 0 }));
  host.use(mount('/api', app));
  const server = createServer(host.callback()).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as { port: number }).port };
}

/** The body as text, gunzipped when it was compressed. */
const bodyOf = (response: HttpResponse): string =>
  response.headers['content-encoding'] === 'gzip'
    ? gunzipSync(response.bytes!).toString('utf8')
    : response.text;

describe('a host Koa app around the service (koa-mount, its own middleware, koa-compress)', () => {
  let service: Service;
  let server: Server;
  let port: number;

  before(async () => {
    service = await buildService(configFor(), (container) => {
      container.rebind(TYPES.PlantStore).toConstantValue(storeWithAnOutage());
    });
    ({ server, port } = await hostServer(service.app));
  });
  after(async () => {
    server.closeAllConnections();
    server.close();
    await service.close();
  });

  const call = (method: string, path: string, token?: string, body?: string, type?: string) =>
    send(port, method, `/api${path}`, {
      headers: [
        ['Accept-Encoding', 'gzip'],
        ...(token === undefined ? [] : [['Authorization', `Bearer ${token}`] as [string, string]]),
        ...(type === undefined ? [] : [['Content-Type', type] as [string, string]]),
      ],
      ...(body !== undefined && { body }),
    });
  const json = 'application/json';

  it('when every kind of answer is asked for, then each carries the host header and is compressed when it has a body', async () => {
    const answers: [string, number, Promise<HttpResponse>][] = [];
    const expectAnswer = (name: string, status: number, response: Promise<HttpResponse>) =>
      answers.push([name, status, response]);

    expectAnswer('create', 200, call('POST', '/plants', WRITER, '{"id":7,"name":"Fern"}', json));
    await answers[0]![2];
    expectAnswer('list', 200, call('GET', '/plants', WRITER));
    expectAnswer('bad limit', 400, call('GET', '/plants?limit=x', WRITER));
    expectAnswer('no token', 401, call('GET', '/plants'));
    expectAnswer('read-only create', 403, call('POST', '/plants', READER, '{}', json));
    expectAnswer('no route', 404, call('GET', '/nowhere', WRITER));
    expectAnswer('wrong method', 405, call('PUT', '/plants', WRITER));
    expectAnswer('duplicate', 409, call('POST', '/plants', WRITER, '{"id":7,"name":"Fern"}', json));
    expectAnswer('too large', 413, call('POST', '/plants', WRITER, 'x'.repeat(70_000), json));
    expectAnswer('not JSON', 415, call('POST', '/plants', WRITER, 'id=1', 'text/plain'));
    expectAnswer('store down', 503, call('GET', '/plants', `${WRITER}-down`));
    expectAnswer('health', 200, call('GET', '/healthz'));
    expectAnswer('document', 200, call('GET', '/openapi.json'));
    expectAnswer('reference', 200, call('GET', '/docs'));
    expectAnswer('metrics', 200, call('GET', '/metrics', METRICS));

    const seen = await Promise.all(
      answers.map(async ([name, , response]) => {
        const answer = await response;
        return `${name}: ${answer.status} ${answer.headers['x-host-after']} ${answer.headers['content-encoding']}`;
      }),
    );
    expect(seen).to.deep.equal(answers.map(([name, status]) => `${name}: ${status} seen gzip`));
  });

  it('when a tenant is over its rate limit (429), then the refusal carries the host header, compressed', async () => {
    const limited = await buildService(configFor({ PLANT_STORE_RATE_LIMIT: '1' }));
    const host = await hostServer(limited.app);
    try {
      // At once, so that one window of the limit (1 s) holds them on a loaded machine.
      const statuses: HttpResponse[] = await Promise.all(
        Array.from({ length: 3 }, () =>
          send(host.port, 'GET', '/api/plants', {
            headers: [
              ['Accept-Encoding', 'gzip'],
              ['Authorization', `Bearer ${READER}`],
            ],
          }),
        ),
      );
      const refused = statuses.find((answer) => answer.status === 429);

      expect(refused, 'one of three requests within a second is refused').not.to.equal(undefined);
      expect([
        refused!.headers['x-host-after'],
        refused!.headers['content-encoding'],
      ]).to.deep.equal(['seen', 'gzip']);
      expect(refused!.headers['retry-after']).to.match(/^[0-9]+$/);
    } finally {
      host.server.closeAllConnections();
      host.server.close();
      await limited.close();
    }
  });

  it('when CORS is configured, then under the mount the preflight is answered and every answer (429 and 503 included) carries its headers', async () => {
    const page = 'https://app.example';
    const cors = await buildService(
      configFor({ PLANT_STORE_CORS_ORIGINS: page, PLANT_STORE_RATE_LIMIT: '1' }),
      (container) => container.rebind(TYPES.PlantStore).toConstantValue(storeWithAnOutage()),
    );
    const host = await hostServer(cors.app);
    const fromPage = (method: string, path: string, headers: [string, string][] = []) =>
      send(host.port, method, `/api${path}`, { headers: [['Origin', page], ...headers] });
    const bearer = (token: string): [string, string] => ['Authorization', `Bearer ${token}`];
    try {
      const preflight = await fromPage('OPTIONS', '/plants', [
        ['Access-Control-Request-Method', 'POST'],
      ]);
      // At once, so that one window of the limit (1 s) holds them on a loaded machine.
      const answers = await Promise.all([
        ...Array.from({ length: 3 }, () => fromPage('GET', '/plants', [bearer(READER)])),
        fromPage('GET', '/plants'),
        fromPage('GET', '/plants/7', [bearer(`${WRITER}-down`)]),
      ]);

      expect([preflight.status, preflight.headers['access-control-allow-methods']]).to.deep.equal([
        204,
        'GET,HEAD,POST,DELETE',
      ]);
      const statuses = answers.map((answer) => answer.status);
      expect(statuses, 'one of three requests within a second is refused').to.include(429);
      expect(statuses.slice(3)).to.deep.equal([401, 503]);
      for (const answer of [preflight, ...answers]) {
        expect(
          [answer.headers['access-control-allow-origin'], answer.headers['x-host-after']],
          String(answer.status),
        ).to.deep.equal([page, 'seen']);
      }
    } finally {
      host.server.closeAllConnections();
      host.server.close();
      await cors.close();
    }
  });

  it('when a plant is deleted (204, no body), then the answer carries the host header', async () => {
    await call('POST', '/plants', WRITER, '{"id":8,"name":"Ivy"}', json);

    const deleted = await call('DELETE', '/plants/8', WRITER);

    expect([deleted.status, deleted.headers['x-host-after'], deleted.text]).to.deep.equal([
      204,
      'seen',
      '',
    ]);
  });

  it('when an answer is compressed, then its body is still the exact JSON, its type JSON and its id header kept', async () => {
    await call('POST', '/plants', WRITER, '{"id":9223372036854775807,"name":"Max"}', json);

    const listed = await call('GET', '/plants?limit=1000', WRITER);
    const refused = await call('GET', '/plants?limit=x', WRITER);

    expect(listed.headers['content-type']).to.equal('application/json; charset=utf-8');
    expect(listed.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
    expect(bodyOf(listed)).to.equal('[{"name":"Fern"},{"name":"Max"}]');
    expect(JSON.parse(bodyOf(refused))).to.have.keys(['error', 'message']);
  });
});

describe('the container as the embedding seam', () => {
  /** A host logger that keeps every line it is given. */
  function keepingLogger(): Logger & { lines: { fields: object; message?: string }[] } {
    const lines: { fields: object; message?: string }[] = [];
    const keep = (fields: object, message?: string) =>
      lines.push({ fields, ...(message !== undefined && { message }) });
    return { lines, debug: keep, info: keep, warn: keep, error: keep };
  }

  it('when the plant store, the logger and the verifier are rebound, then the HTTP API uses them', async () => {
    const store = new MemoryPlantStore();
    const logger = keepingLogger();
    const container = buildContainer(configFor());
    container.rebind(TYPES.PlantStore).toConstantValue(store);
    container.rebind(TYPES.Logger).toConstantValue(logger);
    container.rebind(TYPES.TokenVerifier).toConstantValue({
      verify: async (token) =>
        token === 'host-issued-token-0123456789'
          ? { tenant: 'verified-by-host', scopes: ['plants:read', 'plants:write'] }
          : undefined,
    });
    const service = await resolveService(container);
    await service.opened;
    const { server, port } = await hostServer(service.app);
    try {
      const created = await send(port, 'POST', '/api/plants', {
        headers: [
          ['Authorization', 'Bearer host-issued-token-0123456789'],
          ['Content-Type', 'application/json'],
        ],
        body: '{"id":1,"name":"Rebound"}',
      });
      const configured = await send(port, 'GET', '/api/plants', {
        headers: [['Authorization', `Bearer ${WRITER}`]],
      });

      expect(created.status).to.equal(200);
      expect(await store.list('verified-by-host', undefined, 10)).to.deep.equal([
        { id: 1n, name: 'Rebound' },
      ]);
      expect(configured.status, 'the configured static token is not the host verifier').to.equal(
        401,
      );
      expect(logger.lines.filter((line) => line.message === 'request')).to.have.length(2);
    } finally {
      server.closeAllConnections();
      server.close();
      await service.close();
    }
  });

  it('when the host keeps its own ctx.state keys and request id, then the library leaves them and logs with the host id', async () => {
    const logger = keepingLogger();
    const service = await buildService(configFor(), (container) => {
      container.rebind(TYPES.Logger).toConstantValue(logger);
      container.rebind(TYPES.HttpHostOptions).toConstantValue({
        requestId: (ctx) => (ctx.state as { requestId?: string }).requestId,
      });
      container.rebind(TYPES.PlantStore).toConstantValue({
        insert: () => Promise.reject(new Error('a bug in the host store')),
        get: () => Promise.reject(new Error('a bug in the host store')),
        list: () => Promise.reject(new Error('a bug in the host store')),
        delete: () => Promise.resolve(false),
        tenants: () => Promise.resolve([]),
        importBatch: () => Promise.reject(new Error('a bug in the host store')),
        ping: () => Promise.resolve(),
      });
    });
    const host = new Koa();
    const after: unknown[] = [];
    const hostLog = { marker: 'the host logger' };
    host.use(async (ctx, next) => {
      ctx.state.requestId = 'host-request-7';
      ctx.state.log = hostLog;
      await next();
      after.push({ requestId: ctx.state.requestId, log: ctx.state.log, caller: ctx.state.caller });
    });
    host.use(mount(service.app));
    const server = createServer(host.callback()).listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const port = (server.address() as { port: number }).port;
      const failed = await send(port, 'GET', '/plants', {
        headers: [['Authorization', `Bearer ${WRITER}`]],
      });

      expect(failed.status).to.equal(500);
      expect(failed.headers['x-request-id']).to.equal('host-request-7');
      expect(after).to.deep.equal([
        { requestId: 'host-request-7', log: hostLog, caller: undefined },
      ]);
      const failure = logger.lines.find((line) => line.message === 'unexpected failure');
      expect(failure?.fields).to.include({ requestId: 'host-request-7' });
    } finally {
      server.closeAllConnections();
      server.close();
      await service.close();
    }
  });

  it('when the metrics are unbound, then the service keeps none and serves no /metrics', async () => {
    const service = await buildService(configFor(), (container) => {
      container.unbind(TYPES.Metrics);
    });
    const { server, port } = await hostServer(service.app);
    try {
      const created = await send(port, 'POST', '/api/plants', {
        headers: [
          ['Authorization', `Bearer ${WRITER}`],
          ['Content-Type', 'application/json'],
        ],
        body: '{"id":1,"name":"Unmeasured"}',
      });
      const metrics = await send(port, 'GET', '/api/metrics', {
        headers: [['Authorization', `Bearer ${METRICS}`]],
      });

      expect([created.status, metrics.status, service.metrics]).to.deep.equal([
        200,
        404,
        undefined,
      ]);
    } finally {
      server.closeAllConnections();
      server.close();
      await service.close();
    }
  });

  it("when metrics are bound to the host's registry with a prefix, then they appear there once, beside the host's process metrics, with bounded method labels", async () => {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    const service = await buildService(configFor(), (container) => {
      container.rebind(TYPES.MetricsOptions).toConstantValue({ registry, prefix: 'embedded_' });
    });
    const { server, port } = await hostServer(service.app);
    try {
      await send(port, 'GET', '/api/plants', { headers: [['Authorization', `Bearer ${WRITER}`]] });
      for (const method of ['PROPFIND', 'MKCALENDAR', 'PURGE']) await send(port, method, '/api/x');

      const names = (await registry.getMetricsAsJSON()).map((metric) => metric.name);
      expect(names).to.include('embedded_http_request_duration_seconds');
      expect(names.filter((name) => name.startsWith('embedded_process_'))).to.deep.equal([]);
      expect(new Set(names).size).to.equal(names.length);
      expect(await registry.metrics()).to.match(
        /embedded_http_request_duration_seconds_count\{method="GET",route="\/plants",status_class="2xx"\} 1/,
      );
      // Node parses some 30 methods; they share one label value, so they cannot grow the series.
      expect(await registry.metrics()).to.match(
        /embedded_http_request_duration_seconds_count\{method="OTHER",route="unmatched",status_class="4xx"\} 3/,
      );
    } finally {
      server.closeAllConnections();
      server.close();
      await service.close();
    }
  });

  it("when metrics are bound to the host's registry, then the service's /metrics serves its own series and none of the host's", async () => {
    const registry = new Registry();
    new Counter({
      name: 'host_secret_orders_total',
      help: 'the host’s own',
      registers: [registry],
    }).inc(7);
    const service = await buildService(configFor(), (container) => {
      container.rebind(TYPES.MetricsOptions).toConstantValue({ registry });
    });
    const { server, port } = await hostServer(service.app);
    try {
      await send(port, 'GET', '/api/plants', { headers: [['Authorization', `Bearer ${WRITER}`]] });
      const metrics = await send(port, 'GET', '/api/metrics', {
        headers: [['Authorization', `Bearer ${METRICS}`]],
      });

      expect(metrics.status).to.equal(200);
      expect(metrics.text).to.match(/^plant_store_http_request_duration_seconds_count\{/m);
      expect(metrics.text).to.not.include('host_secret_orders_total');
      expect(await registry.metrics()).to.include('host_secret_orders_total 7');
      expect(await registry.metrics()).to.match(
        /^plant_store_http_request_duration_seconds_count\{/m,
      );
    } finally {
      server.closeAllConnections();
      server.close();
      await service.close();
    }
  });

  it("when metrics are bound to the host's registry with the route left out, then they are kept there and the service serves no /metrics", async () => {
    const registry = new Registry();
    const service = await buildService(configFor(), (container) => {
      container.rebind(TYPES.MetricsOptions).toConstantValue({ registry, route: false });
    });
    const { server, port } = await hostServer(service.app);
    try {
      await send(port, 'GET', '/api/plants', { headers: [['Authorization', `Bearer ${WRITER}`]] });
      const metrics = await send(port, 'GET', '/api/metrics', {
        headers: [['Authorization', `Bearer ${METRICS}`]],
      });

      expect(metrics.status).to.equal(404);
      expect(await registry.metrics()).to.match(
        /^plant_store_http_request_duration_seconds_count\{method="GET",route="\/plants",status_class="2xx"\} 1$/m,
      );
    } finally {
      server.closeAllConnections();
      server.close();
      await service.close();
    }
  });
});
