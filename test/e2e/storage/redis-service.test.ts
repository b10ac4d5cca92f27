import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { freePort } from '../../support/free-port.js';
import { startRedisServer, type RedisProcess } from '../../support/redis-server.js';
import { serverMissing } from '../../support/server-requirement.js';
import {
  MAIN,
  runProgram,
  startService,
  type ServiceProcess,
} from '../../support/service-process.js';

const TOKEN = `redis-service-${randomUUID()}`;
const BOUND_MS = 2500;

/** Calls the service as the caller of the contract would, in a tenant of the test's own. */
function client(service: ServiceProcess, tenant: string) {
  const call = (method: string, path: string, body?: string): Promise<Response> =>
    fetch(`http://127.0.0.1:${service.port}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${TOKEN}-${tenant}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body }),
    });
  return {
    // The id is written into the JSON text, so that it never passes through a JS number.
    create: (id: bigint, name: string) => call('POST', '/plants', `{"id":${id},"name":"${name}"}`),
    list: () => call('GET', '/plants?limit=1000'),
    remove: (id: bigint) => call('DELETE', `/plants/${id}`),
  };
}

describe('The service on Redis, as processes', function () {
  // Each service process starts through tsx; two cores are shared with other work.
  this.timeout(60_000);
  const tenants = ['restart', 'race', 'outage'];
  let redis: RedisProcess;
  let close: (() => Promise<void>) | undefined;
  const services: ServiceProcess[] = [];
  let env: Record<string, string>;

  const start = async (): Promise<ServiceProcess> => {
    const service = await startService(env);
    services.push(service);
    return service;
  };

  before(async function () {
    const started = await startRedisServer();
    if (typeof started === 'string') return serverMissing(this, 'Redis', started);
    ({ server: redis, close } = started);
    const tokens = tenants.map((tenant) => ({
      token: `${TOKEN}-${tenant}`,
      tenant,
      scopes: ['plants:read', 'plants:write'],
    }));
    env = {
      PLANT_STORE_STORAGE: 'redis',
      REDIS_URL: redis.url,
      PLANT_STORE_TOKENS: JSON.stringify(tokens),
    };
  });
  after(async () => {
    await Promise.all(services.map((service) => service.stop()));
    await close?.();
  });

  it('when plants are created through one process, then a fresh process lists them', async () => {
    const first = await start();
    for (const [id, name] of [
      [2n ** 53n + 1n, 'c'],
      [-(2n ** 63n), 'a'],
      [2n ** 53n, 'b'],
    ] as const) {
      expect((await client(first, 'restart').create(id, name)).status).to.equal(200);
    }
    await first.stop();

    const fresh = await start();
    const response = await client(fresh, 'restart').list();

    expect(response.status).to.equal(200);
    expect(await response.json()).to.deep.equal([{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
  });

  it('when 50 creates of one id race over two processes, then exactly one is 200 and 49 are 409', async () => {
    const pair = [await start(), await start()];

    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => client(pair[i % 2]!, 'race').create(7n, `racer ${i}`)),
    );

    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).to.deep.equal([200, ...Array<number>(49).fill(409)]);
    const conflict = responses.find((r) => r.status === 409)!;
    expect(((await conflict.json()) as { error: number }).error).to.equal(40901);
    expect(await (await client(pair[1]!, 'race').list()).json()).to.have.length(1);
  });

  it('when Redis stops, then requests answer 503 50301 in time; when it returns, the same process serves again', async () => {
    const service = await start();
    const api = client(service, 'outage');
    expect((await api.create(1n, 'before')).status).to.equal(200);
    await redis.stop();

    for (const request of [() => api.create(2n, 'during'), api.list, () => api.remove(1n)]) {
      const started = Date.now();
      const response = await request();
      expect(Date.now() - started).to.be.below(BOUND_MS);
      expect(response.status).to.equal(503);
      expect(response.headers.get('retry-after')).to.match(/^[0-9]+$/);
      expect(await response.json()).to.deep.equal({
        error: 50301,
        message: 'storage is unavailable',
      });
    }
    expect((await fetch(`http://127.0.0.1:${service.port}/readyz`)).status).to.equal(503);

    await redis.start();
    let listed = await api.list();
    for (let tries = 0; listed.status !== 200 && tries < 100; tries++) {
      await sleep(50);
      listed = await api.list();
    }
    expect(listed.status).to.equal(200);
    // The test's Redis persists nothing, so it returns empty.
    expect((await api.create(3n, 'after')).status).to.equal(200);
    expect(await (await api.list()).json()).to.deep.equal([{ name: 'after' }]);
  });

  it('when Redis never comes up, then the service exits 1 after the start-up bound with one line naming it', async () => {
    const port = await freePort();
    const started = Date.now();

    const { code, stderr } = await runProgram(MAIN, {
      ...env,
      REDIS_URL: `redis://127.0.0.1:${port}`,
      LOG_LEVEL: 'silent',
      PLANT_STORE_STARTUP_TIMEOUT: '2',
    });

    expect(code).to.equal(1);
    expect(Date.now() - started).to.be.above(2000);
    expect(stderr.trim().split('\n')).to.have.length(1);
    expect(stderr).to.match(
      new RegExp(
        `Redis at 127\\.0\\.0\\.1:${port} \\(REDIS_URL\\) is not ready after 2 s \\(connection refused\\)$`,
        'm',
      ),
    );
  });
});
