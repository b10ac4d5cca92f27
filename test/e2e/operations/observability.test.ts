import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { parsePrometheus, sampleValue, type Sample } from '../../support/prometheus-text.js';
import {
  CLI,
  runProgram,
  startService,
  type ServiceProcess,
} from '../../support/service-process.js';
import { eventually, RawClient } from '../../support/raw-client.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DURATION = 'plant_store_http_request_duration_seconds_count';
const IN_FLIGHT = 'plant_store_http_requests_in_flight';

/** Every stdout line parsed: each must be JSON. */
function logLines(service: ServiceProcess): Record<string, unknown>[] {
  const lines = service
    .stdout()
    .split('\n')
    .filter((line) => line !== '');
  return lines.map((line) => {
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      return expect.fail(`a stdout line is not JSON: ${line}`);
    }
  });
}

/** A service at LOG_LEVEL info with a token file of its own; `dispose` stops it and removes the file. */
async function startObserved(
  env: Record<string, string>,
): Promise<{ service: ServiceProcess; directory: string; dispose: () => Promise<void> }> {
  const directory = await mkdtemp(join(tmpdir(), 'plant-store-observe-'));
  const service = await startService({
    LOG_LEVEL: 'info',
    PLANT_STORE_DATA_DIR: join(directory, 'data'),
    ...env,
  });
  const dispose = async () => {
    await service.stop();
    await rm(directory, { recursive: true, force: true });
  };
  return { service, directory, dispose };
}

describe('Observability of a service process: access log, request ids, /metrics', function () {
  this.timeout(60_000);
  const token = (name: string) => `${name}-${randomUUID()}`;
  const tokens = {
    ops: token('ops'),
    garden: token('garden'),
    quota: token('quota'),
    dupes: token('dupes'),
    limited: token('limited'),
    deletes: token('deletes'),
  };
  let directory: string;
  let service: ServiceProcess;
  let dispose: (() => Promise<void>) | undefined;

  const call = async (
    key: keyof typeof tokens | undefined,
    method: string,
    path: string,
    { body, requestId }: { body?: string; requestId?: string } = {},
  ): Promise<Response> =>
    fetch(`http://127.0.0.1:${service.port}${path}`, {
      method,
      headers: {
        ...(key && { Authorization: `Bearer ${tokens[key]}` }),
        ...(body !== undefined && { 'Content-Type': 'application/json' }),
        ...(requestId !== undefined && { 'X-Request-Id': requestId }),
      },
      ...(body !== undefined && { body }),
    });
  const scrape = async (): Promise<Sample[]> => {
    const response = await call('ops', 'GET', '/metrics');
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    return parsePrometheus(await response.text());
  };
  /** The access log line of the request with this id, once it is written. */
  const accessLine = async (requestId: string): Promise<Record<string, unknown>> => {
    await service.waitFor(
      new RegExp(`"requestId":"${requestId.replace(/\./g, '\\.')}"[^\\n]*"msg":"request"`),
    );
    const lines = logLines(service).filter((l) => l.requestId === requestId && l.msg === 'request');
    expect(lines).to.have.length(1);
    return lines[0]!;
  };

  before(async () => {
    const table = Object.entries(tokens).map(([tenant, text]) => ({
      token: text,
      tenant,
      scopes: tenant === 'ops' ? ['metrics:read'] : ['plants:read', 'plants:write'],
    }));
    ({ service, directory, dispose } = await startObserved({
      PLANT_STORE_TOKENS: JSON.stringify(table),
      PLANT_STORE_RATE_LIMIT: '5',
      PLANT_STORE_MAX_PLANTS_PER_TENANT: '1',
    }));
  });
  after(async () => {
    await dispose?.();
  });

  it('when requests are answered, then each has one JSON access line with its id, route template, status, size and tenant, and never a token', async () => {
    const created = await call('garden', 'POST', '/plants', {
      body: '{"id":9007199254740993,"name":"Monstera"}',
      requestId: 'client.id:1_2-3',
    });
    const missing = await call('deletes', 'DELETE', '/plants/77', { requestId: 'not a valid id!' });
    const unrouted = await call(undefined, 'GET', '/nowhere');

    expect(created.headers.get('x-request-id')).to.equal('client.id:1_2-3');
    const missingId = missing.headers.get('x-request-id')!;
    const unroutedId = unrouted.headers.get('x-request-id')!;
    expect(missingId).to.match(UUID);
    expect(unroutedId).to.match(UUID).and.not.equal(missingId);
    const create = await accessLine('client.id:1_2-3');
    expect(create).to.deep.include({
      level: 30,
      method: 'POST',
      route: '/plants',
      status: 200,
      size: Number(created.headers.get('content-length')),
      tenant: 'garden',
      ip: '127.0.0.1',
    });
    expect(create.durationMs).to.be.a('number').and.at.least(0);
    expect(create).to.not.have.property('error');
    const deletion = await accessLine(missingId);
    expect(deletion).to.deep.include({
      method: 'DELETE',
      route: '/plants/:id',
      status: 404,
      error: 40401,
      tenant: 'deletes',
    });
    expect(JSON.stringify(deletion)).to.not.include('/plants/77');
    const unmatched = await accessLine(unroutedId);
    expect(unmatched).to.deep.include({ method: 'GET', status: 404, error: 40402 });
    expect(unmatched).to.not.have.any.keys('route', 'tenant');
    for (const text of Object.values(tokens)) expect(service.output()).to.not.include(text);
    expect(logLines(service).length).to.be.greaterThan(3);
  });

  it('when known requests are made between two scrapes, then the counters move by exactly them', async () => {
    const before = await scrape();
    expect(
      (await call('quota', 'POST', '/plants', { body: '{"id":1,"name":"a"}' })).status,
    ).to.equal(200);
    expect(
      (await call('quota', 'POST', '/plants', { body: '{"id":2,"name":"b"}' })).status,
    ).to.equal(403);
    expect(
      (await call('dupes', 'POST', '/plants', { body: '{"id":5,"name":"c"}' })).status,
    ).to.equal(200);
    expect(
      (await call('dupes', 'POST', '/plants', { body: '{"id":5,"name":"c"}' })).status,
    ).to.equal(409);
    // All at once, so that one window of the limit (1 s) holds them on a loaded machine.
    const listed = await Promise.all(
      Array.from({ length: 6 }, async () => (await call('limited', 'GET', '/plants')).status),
    );
    expect(listed.sort()).to.deep.equal([200, 200, 200, 200, 200, 429]);
    const after = await scrape();
    const moved = (name: string, labels: Record<string, string> = {}) =>
      sampleValue(after, name, labels) - sampleValue(before, name, labels);

    expect({
      created: moved(DURATION, { method: 'POST', route: '/plants', status_class: '2xx' }),
      refusedCreates: moved(DURATION, { method: 'POST', route: '/plants', status_class: '4xx' }),
      lists: moved(DURATION, { method: 'GET', route: '/plants', status_class: '2xx' }),
      limitedLists: moved(DURATION, { method: 'GET', route: '/plants', status_class: '4xx' }),
      // The first scrape's own request ends after its text was made.
      scrapes: moved(DURATION, { method: 'GET', route: '/metrics', status_class: '2xx' }),
      quota: moved('plant_store_quota_refused_total'),
      rateLimited: moved('plant_store_rate_limited_total', { limit: 'tenant' }),
      // 4 creates, 6 lists (the 429 is refused after its token), the second scrape.
      staticTokens: moved('plant_store_token_verifications_total', {
        kind: 'static',
        result: 'accepted',
      }),
      inserts: moved('plant_store_store_operation_duration_seconds_count', {
        store: 'plants',
        operation: 'insert',
        adapter: 'lmdb',
      }),
      insertErrors: moved('plant_store_store_operation_errors_total', {
        store: 'plants',
        operation: 'insert',
        adapter: 'lmdb',
      }),
      storeLists: moved('plant_store_store_operation_duration_seconds_count', {
        store: 'plants',
        operation: 'list',
        adapter: 'lmdb',
      }),
      inFlight: sampleValue(after, IN_FLIGHT),
    }).to.deep.equal({
      created: 2,
      refusedCreates: 2,
      lists: 5,
      limitedLists: 1,
      scrapes: 1,
      quota: 1,
      rateLimited: 1,
      staticTokens: 11,
      inserts: 4,
      insertErrors: 1,
      storeLists: 5,
      inFlight: 1,
    });
    expect(sampleValue(after, 'plant_store_process_cpu_user_seconds_total')).to.be.greaterThan(0);
    expect(after.some((s) => s.name === 'plant_store_nodejs_eventloop_lag_seconds')).to.equal(true);
    // Bounded labels: no tenant, no id, route templates only.
    const values = after.flatMap((s) => Object.values(s.labels));
    expect(values).to.not.include.members(['quota', 'dupes', 'limited', 'garden']);
    const routes = new Set(after.flatMap((s) => (s.labels.route ? [s.labels.route] : [])));
    expect(
      [...routes].every((route) => /^(?:\/[a-z]*(?:\/:id)?|unmatched|\/[a-z.]+)$/.test(route)),
    ).to.equal(true);
    expect(routes).to.include('/plants/:id').and.include('unmatched');
  });

  it('when /metrics is asked without a token or without the metrics:read scope, then 401 and 403', async () => {
    const anonymous = await call(undefined, 'GET', '/metrics');
    const plantsOnly = await call('garden', 'GET', '/metrics');

    expect([anonymous.status, ((await anonymous.json()) as { error: number }).error]).to.deep.equal(
      [401, 40101],
    );
    expect([
      plantsOnly.status,
      ((await plantsOnly.json()) as { error: number }).error,
    ]).to.deep.equal([403, 40301]);
  });

  it('when a managed token is issued with --scope metrics:read, then it scrapes /metrics, counted as a managed verification', async () => {
    const issued = await runProgram(
      [
        ...CLI,
        'tokens',
        'create',
        '--tenant',
        'ops',
        '--scope',
        'metrics:read',
        '--name',
        'prometheus',
      ],
      { PLANT_STORE_DATA_DIR: join(directory, 'data') },
    );
    expect(issued.code, issued.stderr).to.equal(0);
    const managed = issued.stdout.trim();

    const first = await fetch(`http://127.0.0.1:${service.port}/metrics`, {
      headers: { Authorization: `Bearer ${managed}` },
    });
    const plants = await fetch(`http://127.0.0.1:${service.port}/plants`, {
      headers: { Authorization: `Bearer ${managed}` },
    });
    const samples = parsePrometheus(await first.text());

    expect(first.status).to.equal(200);
    expect(plants.status).to.equal(403);
    expect(
      sampleValue(samples, 'plant_store_token_verifications_total', {
        kind: 'managed',
        result: 'accepted',
      }),
    ).to.equal(1);
  });
});

describe('A service process with the access log and metrics off, and a development token', function () {
  this.timeout(60_000);
  let service: ServiceProcess;
  let dispose: (() => Promise<void>) | undefined;

  before(async () => {
    ({ service, dispose } = await startObserved({
      PLANT_STORE_ACCESS_LOG: 'off',
      PLANT_STORE_METRICS: 'off',
    }));
  });
  after(async () => {
    await dispose?.();
  });

  it('when it starts, then the token and the listening line are on stderr, and every stdout line is JSON', async () => {
    const [, token] = await service.waitFor(/export TOKEN=(pst_\S+)/);
    // pino's stdout line may follow the stderr one: wait for it, then read every line.
    await service.waitFor(/"msg":"listening"/);
    const answer = await fetch(`http://127.0.0.1:${service.port}/plants`, {
      headers: { Authorization: `Bearer ${token}` },
    });

    expect(answer.status).to.equal(200);
    expect(answer.headers.get('x-request-id')).to.match(UUID);
    expect(service.stdout()).to.not.include(token).and.not.include('listening on http');
    expect(service.output()).to.include('plant-store: listening on http://127.0.0.1:');
    const lines = logLines(service);
    expect(lines.map((l) => l.msg))
      .to.include('listening')
      .and.not.include('request');
  });

  it('when /metrics is asked with metrics off, then 404 as for any unknown path', async () => {
    const [, token] = await service.waitFor(/export TOKEN=(pst_\S+)/);
    const response = await fetch(`http://127.0.0.1:${service.port}/metrics`, {
      headers: { Authorization: `Bearer ${token}` },
    });

    expect(response.status).to.equal(404);
    expect(((await response.json()) as { error: number }).error).to.equal(40402);
  });
});

describe('Shutdown of a service process with a request in flight', function () {
  this.timeout(60_000);

  it('when the grace period ends with a request unanswered, then the log says how many were in flight', async () => {
    const token = `grace-${randomUUID()}`;
    const ops = `grace-ops-${randomUUID()}`;
    const { service, dispose } = await startObserved({
      PLANT_STORE_TOKENS: JSON.stringify([
        { token, tenant: 'grace', scopes: ['plants:write'] },
        { token: ops, tenant: 'ops', scopes: ['metrics:read'] },
      ]),
      PLANT_STORE_SHUTDOWN_GRACE_SECONDS: '1',
    });
    try {
      // A create whose body never arrives in full: it stays in flight.
      const client = await RawClient.open(service.port);
      client.send(
        `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"id":1,',
      );
      // Stopped only once the service has it in flight (the scrape itself is the other one).
      await eventually(
        async () => {
          const metrics = await fetch(`http://127.0.0.1:${service.port}/metrics`, {
            headers: { Authorization: `Bearer ${ops}` },
          });
          return sampleValue(parsePrometheus(await metrics.text()), IN_FLIGHT) === 2;
        },
        10_000,
        'the create in flight',
      );

      expect(await service.stop()).to.equal(0);
      const lines = service
        .stdout()
        .split('\n')
        .filter((line) => line.includes('grace period ended'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines).to.have.length(1);
      expect(lines[0]).to.include({ level: 40, inFlight: 1, graceSeconds: 1 });
      client.destroy();
    } finally {
      await dispose();
    }
  });

  it('when every request is answered within the grace period, then no such line is written', async () => {
    const { service, dispose } = await startObserved({ PLANT_STORE_SHUTDOWN_GRACE_SECONDS: '1' });
    try {
      expect((await fetch(`http://127.0.0.1:${service.port}/healthz`)).status).to.equal(200);

      expect(await service.stop()).to.equal(0);
      expect(service.stdout()).to.include('shutting down').and.not.include('grace period ended');
    } finally {
      await dispose();
    }
  });
});

describe('A service process with OTEL_EXPORTER_OTLP_ENDPOINT set', function () {
  this.timeout(60_000);

  it('when a plant is created, then its spans reach the OTLP/HTTP collector', async () => {
    const received: { path: string; type: string; body: Buffer }[] = [];
    const collector = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({
          path: request.url ?? '',
          type: request.headers['content-type'] ?? '',
          body: Buffer.concat(chunks),
        });
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    collector.listen(0, '127.0.0.1');
    await once(collector, 'listening');
    const token = `traced-${randomUUID()}`;
    const { service, dispose } = await startObserved({
      PLANT_STORE_TOKENS: JSON.stringify([{ token, tenant: 'traced', scopes: ['plants:write'] }]),
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as { port: number }).port}`,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_SERVICE_NAME: 'plant-store-under-test',
    });
    try {
      const created = await fetch(`http://127.0.0.1:${service.port}/plants`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: '{"id":7,"name":"Traced"}',
      });
      expect(created.status).to.equal(200);

      const deadline = Date.now() + 10_000;
      const exported = () => Buffer.concat(received.map((r) => r.body)).toString('latin1');
      while (!exported().includes('insert plants') && Date.now() < deadline) await sleep(100);

      expect(received[0]).to.include({ path: '/v1/traces', type: 'application/json' });
      for (const name of [
        'POST /plants',
        'createPlant',
        'insert plants',
        'plant-store-under-test',
      ]) {
        expect(exported(), name).to.include(name);
      }
    } finally {
      await dispose();
      collector.close();
    }
  });
});
