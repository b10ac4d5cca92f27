import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { freePort } from '../../support/free-port.js';
import {
  startMongoServer,
  startStoppableMongo,
  type MongoServer,
} from '../../support/mongo-server.js';
import { serverMissing } from '../../support/server-requirement.js';
import {
  MAIN,
  runProgram,
  startService,
  type ServiceProcess,
} from '../../support/service-process.js';

/** A token of a tenant of its own, and the environment that makes a service accept it. */
function tenantEnv(url: string): { token: string; env: Record<string, string> } {
  const token = `test_${randomBytes(18).toString('base64url')}`;
  const tokens = [{ token, tenant: `t-${randomUUID()}`, scopes: ['plants:read', 'plants:write'] }];
  return {
    token,
    env: {
      PLANT_STORE_STORAGE: 'mongodb',
      MONGODB_URL: url,
      PLANT_STORE_TOKENS: JSON.stringify(tokens),
    },
  };
}

function call(service: ServiceProcess, token: string, method: string, path: string, body?: string) {
  return fetch(`http://127.0.0.1:${service.port}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body !== undefined && { 'Content-Type': 'application/json' }),
    },
    ...(body !== undefined && { body }),
  });
}

async function expect503(request: Promise<Response>): Promise<void> {
  const started = performance.now();
  const response = await request;
  expect(performance.now() - started).to.be.below(2500);
  expect(response.status).to.equal(503);
  expect(response.headers.get('retry-after')).to.match(/^[0-9]+$/);
  expect(response.headers.get('content-type')).to.equal('application/json; charset=utf-8');
  expect(await response.json()).to.deep.equal({ error: 50301, message: 'storage is unavailable' });
}

describe('plant-store service processes on MongoDB', function () {
  // Each service process starts through tsx; two cores are shared with other work.
  this.timeout(60_000);
  let server: MongoServer | undefined;
  const services: ServiceProcess[] = [];
  const start = async (env: Record<string, string>) => {
    const service = await startService(env);
    services.push(service);
    return service;
  };

  before(async function () {
    const found = await startMongoServer();
    if (typeof found === 'string') return serverMissing(this, 'MongoDB', found);
    server = found;
  });
  afterEach(async () => {
    await Promise.all(services.splice(0).map((service) => service.stop()));
  });
  after(() => server?.dispose());

  it('when plants are created through one process, then a fresh process lists them', async () => {
    const { token, env } = tenantEnv(server!.url);
    const first = await start(env);
    for (const id of ['9007199254740993', '-1', '9007199254740992']) {
      const created = await call(first, token, 'POST', '/plants', `{"id":${id},"name":"p${id}"}`);
      expect(created.status).to.equal(200);
    }
    await first.stop();

    const second = await start(env);
    const listed = await call(second, token, 'GET', '/plants');

    expect(listed.status).to.equal(200);
    expect(await listed.json()).to.deep.equal([
      { name: 'p-1' },
      { name: 'p9007199254740992' },
      { name: 'p9007199254740993' },
    ]);
  });

  it('when two processes race 50 creates of one id, then exactly one answers 200 and 49 answer 409', async () => {
    const { token, env } = tenantEnv(server!.url);
    const pair = await Promise.all([start(env), start(env)]);

    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call(pair[i % 2]!, token, 'POST', '/plants', `{"id":4242,"name":"racer ${i}"}`),
      ),
    );

    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).to.have.length(1);
    expect(statuses.filter((status) => status === 409)).to.have.length(49);
    const winner = statuses.indexOf(200);
    const listed = await call(pair[1]!, token, 'GET', '/plants');
    expect(await listed.json()).to.deep.equal([{ name: `racer ${winner}` }]);
  });

  it('when MongoDB never comes up, then the process exits 1 after the start-up bound with one line naming MONGODB_URL', async () => {
    const { env } = tenantEnv(`mongodb://127.0.0.1:${await freePort()}/plant_store`);
    const started = Date.now();

    const { code, stderr } = await runProgram(MAIN, {
      ...env,
      LOG_LEVEL: 'silent',
      PLANT_STORE_STARTUP_TIMEOUT: '2',
    });

    expect(code).to.equal(1);
    expect(Date.now() - started).to.be.above(2000);
    expect(stderr.trim().split('\n')).to.have.length(1);
    expect(stderr).to.match(
      /^plant-store: failed to start: MongoDB at 127\.0\.0\.1:\d+ \(MONGODB_URL\) is not ready after 2 s \(connection refused\)$/m,
    );
  });
});

describe('plant-store service process through a MongoDB outage', function () {
  this.timeout(60_000);
  let server: MongoServer | undefined;
  let service: ServiceProcess | undefined;

  before(async function () {
    server = await startStoppableMongo(this);
  });
  after(async () => {
    await service?.stop();
    await server?.dispose();
  });

  it('when the server stops, then requests answer 503 50301 with Retry-After within 2.5 s, and succeed once it is back', async () => {
    const { token, env } = tenantEnv(server!.url);
    service = await startService(env);
    expect(
      (await call(service, token, 'POST', '/plants', '{"id":1,"name":"before"}')).status,
    ).to.equal(200);

    await server!.stop!();

    await expect503(call(service, token, 'POST', '/plants', '{"id":2,"name":"during"}'));
    await expect503(call(service, token, 'GET', '/plants'));
    await expect503(call(service, token, 'DELETE', '/plants/1'));
    expect((await fetch(`http://127.0.0.1:${service.port}/readyz`)).status).to.equal(503);

    await server!.start!();

    // Readiness answers may be up to 1 s old: the 503 above may still be the answer for a while.
    const readyBy = Date.now() + 3000;
    let ready = await fetch(`http://127.0.0.1:${service.port}/readyz`);
    while (ready.status !== 200 && Date.now() < readyBy) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      ready = await fetch(`http://127.0.0.1:${service.port}/readyz`);
    }
    expect(ready.status).to.equal(200);
    expect(
      (await call(service, token, 'POST', '/plants', '{"id":3,"name":"after"}')).status,
    ).to.equal(200);
    const listed = await call(service, token, 'GET', '/plants');
    expect(await listed.json()).to.deep.equal([{ name: 'before' }, { name: 'after' }]);
  });
});
