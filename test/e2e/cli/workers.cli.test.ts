import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { freePort } from '../../support/free-port.js';
import { send } from '../../support/http-client.js';
import { startRedisServer, type RedisUnderTest } from '../../support/redis-server.js';
import { serverMissing } from '../../support/server-requirement.js';
import { eventually, RawClient, sleep } from '../../support/raw-client.js';
import {
  CLI,
  runProgram,
  startWorkers,
  workerPids,
  type ServiceProcess,
} from '../../support/service-process.js';

const TOKEN = `workers-${randomUUID()}`;

describe('plant-store serve --workers, on Redis', function () {
  // Three processes start through tsx on two shared cores.
  this.timeout(150_000);
  let redis: RedisUnderTest | undefined;
  let service: ServiceProcess | undefined;
  let env: Record<string, string>;

  before(async function () {
    const started = await startRedisServer();
    if (typeof started === 'string') return serverMissing(this, 'Redis', started);
    redis = started;
    env = {
      PLANT_STORE_STORAGE: 'redis',
      REDIS_URL: redis.url,
      LOG_LEVEL: 'info',
      PLANT_STORE_TOKENS: JSON.stringify([
        { token: TOKEN, tenant: 'workers', scopes: ['plants:read', 'plants:write'] },
      ]),
    };
    service = await startWorkers(env);
  });
  after(async () => {
    await service?.stop();
    await redis?.close();
  });

  const auth: [string, string] = ['Authorization', `Bearer ${TOKEN}`];
  const call = (method: string, path: string, body?: string) =>
    send(service!.port, method, path, {
      headers: body === undefined ? [auth] : [auth, ['Content-Type', 'application/json']],
      ...(body === undefined ? {} : { body }),
    });

  it('when it says it listens, then both workers listen on the one port', () => {
    expect(workerPids(service!)).to.have.length(2);
    expect(service!.output()).to.match(
      /listening on http:\/\/127\.0\.0\.1:\d+ \(storage: redis, workers: 2\)/,
    );
  });

  it('when a plant is created, then every request sees it, whichever worker answers', async () => {
    expect(
      (await call('POST', '/plants', '{"id":9007199254740993,"name":"shared"}')).status,
    ).to.equal(200);
    const pages = await Promise.all(Array.from({ length: 20 }, () => call('GET', '/plants')));
    for (const page of pages) expect(page.text).to.equal('[{"name":"shared"}]');
  });

  it('when requests are spread over the workers, then each access line says which worker answered (its cluster id)', async () => {
    const accessLines = () =>
      service!
        .stdout()
        .split('\n')
        .filter((line) => line.includes('"msg":"request"'))
        .map((line) => JSON.parse(line) as { worker?: unknown; status: number });
    const before = accessLines().length;
    await Promise.all(Array.from({ length: 20 }, () => call('GET', '/plants?limit=7')));
    // Each worker writes its lines when it gets to them: wait for all 20 (a busy machine is slow).
    const deadline = Date.now() + 10_000;
    while (accessLines().length < before + 20 && Date.now() < deadline) await sleep(50);
    const lines = accessLines();
    expect(lines.length - before).to.be.at.least(20);
    expect(new Set(lines.map((line) => line.worker))).to.deep.equal(new Set([1, 2]));
  });

  it('when one address opens 300 connections with partial headers, then the instance holds at most its bound of 128 (64 a worker) and another address is served', async () => {
    const opened = await Promise.all(
      Array.from({ length: 300 }, () =>
        RawClient.open(service!.port, { localAddress: '127.0.0.2' }),
      ),
    );
    try {
      for (const client of opened) client.send('GET /plants HTTP/1.1\r\nHost: x\r\n');
      const open = () =>
        opened.filter((client) => !client.socket.destroyed && !client.socket.readableEnded);
      // The workers close the extra ones as they accept them: wait until they have.
      await eventually(() => open().length <= 128, 10_000, 'the bound held');

      expect(open().length).to.be.within(1, 128);
      expect((await call('GET', '/readyz')).status).to.equal(200);
    } finally {
      for (const client of opened) client.destroy();
    }
  });

  it('when a worker dies, then another takes its place and the service keeps answering', async () => {
    const [victim] = workerPids(service!);
    process.kill(victim!, 'SIGKILL');
    await service!.waitFor(/worker exited; starting another/);
    const deadline = Date.now() + 60_000;
    while (workerPids(service!).length < 3 && Date.now() < deadline) {
      expect((await call('GET', '/readyz')).status).to.equal(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(workerPids(service!)).to.have.length(3);
  });

  it('when SIGTERM arrives, then every worker drains and the primary exits 0', async () => {
    const pids = workerPids(service!);
    expect(await service!.stop()).to.equal(0);
    service = undefined;
    for (const pid of pids) expect(() => process.kill(pid, 0), `worker ${pid}`).to.throw();
  });

  it('when the workers cannot reach Redis, then the start fails with exit 1 naming the cause', async () => {
    const closed = `redis://127.0.0.1:${await freePort()}`;
    const outcome = await runProgram(
      [...CLI, 'serve', '--workers', '2'],
      { ...env, REDIS_URL: closed, PLANT_STORE_STARTUP_TIMEOUT: '2' },
      60_000,
    );
    expect(outcome.code, outcome.stdout + outcome.stderr).to.equal(1);
    expect(outcome.stderr).to.match(
      /plant-store: failed to start: a worker exited \(code 1\) before it was ready/,
    );
    expect(outcome.stderr).to.match(/Redis at 127\.0\.0\.1:\d+ \(REDIS_URL\) is not ready/);
  });

  it('when the per-address bound is smaller than the number of workers, then the start is refused naming it', async () => {
    const outcome = await runProgram([...CLI, 'serve', '--workers', '2'], {
      ...env,
      PLANT_STORE_MAX_CONNECTIONS_PER_ADDRESS: '1',
    });

    expect(outcome.code).to.not.equal(0);
    expect(outcome.stderr).to.match(
      /PLANT_STORE_MAX_CONNECTIONS_PER_ADDRESS \(1\) must be at least the number of workers \(2\)/,
    );
  });
});
