import { spawn, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { freePort } from '../../support/free-port.js';
import { IdentityProvider } from '../../support/identity-provider.js';
import { startStoppableMongo, type MongoServer } from '../../support/mongo-server.js';
import { unstartedRedisServer, type RedisProcess } from '../../support/redis-server.js';
import { serverMissing } from '../../support/server-requirement.js';
import {
  MAIN,
  runProgram,
  startService,
  type ServiceProcess,
} from '../../support/service-process.js';

// Start-up against a store that is late, absent, misconfigured, or on a busy core. Each service
// process starts through tsx on two shared cores: the bounds here are generous on purpose.
const STORE_DELAY_MS = 3000;

/** A token of a tenant of its own, and the environment that makes a service accept it. */
function withToken(env: Record<string, string>): { token: string; env: Record<string, string> } {
  const token = `test_${randomBytes(18).toString('base64url')}`;
  const tokens = [{ token, tenant: `t-${randomUUID()}`, scopes: ['plants:read', 'plants:write'] }];
  return { token, env: { ...env, PLANT_STORE_TOKENS: JSON.stringify(tokens) } };
}

const get = (port: number, path: string, token = ''): Promise<Response> =>
  fetch(`http://127.0.0.1:${port}${path}`, { headers: { Authorization: `Bearer ${token}` } });

/** Resolves once the port answers /healthz; fails after `ms`. */
async function untilHealthy(port: number, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const status = await get(port, '/healthz').then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline) expect.fail(`port ${port} never answered /healthz`);
    await sleep(100);
  }
}

/** Stores a plant and lists it back: the service serves. */
async function expectServes(service: ServiceProcess, token: string): Promise<void> {
  const created = await fetch(`http://127.0.0.1:${service.port}/plants`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: '{"id":1,"name":"late"}',
  });
  expect(created.status).to.equal(200);
  expect(await (await get(service.port, '/plants', token)).json()).to.deep.equal([
    { name: 'late' },
  ]);
}

/**
 * Starts the service on a port chosen here, checks that while its store is down the port answers
 * /healthz 200, /readyz 503 and /plants 503 50301, then brings the store up STORE_DELAY_MS later;
 * resolves the service once it prints its listening line.
 */
async function startBeforeStore(
  env: Record<string, string>,
  token: string,
  startStore: () => Promise<void>,
): Promise<ServiceProcess> {
  const port = await freePort();
  const starting = startService({ ...env, PORT: String(port) }, MAIN, { timeoutMs: 60_000 });
  starting.catch(() => {});
  await untilHealthy(port);
  expect((await get(port, '/readyz')).status).to.equal(503);
  const plants = await get(port, '/plants', token);
  expect(plants.status).to.equal(503);
  expect(((await plants.json()) as { error: number }).error).to.equal(50301);
  await sleep(STORE_DELAY_MS);
  await startStore();
  return starting;
}

/**
 * Runs the service with a start-up bound of 120 s and resolves its stderr once it exited 1; fails
 * unless it gave up well within that bound (an error that waiting cannot heal).
 */
async function failsAtOnce(env: NodeJS.ProcessEnv): Promise<string> {
  const started = Date.now();
  const { code, stderr } = await runProgram(MAIN, {
    ...env,
    PLANT_STORE_STARTUP_TIMEOUT: '120',
    LOG_LEVEL: 'silent',
  });
  expect(code).to.equal(1);
  expect(Date.now() - started).to.be.below(40_000);
  return stderr;
}

describe('Start-up with Redis', function () {
  this.timeout(90_000);
  let redis: RedisProcess | undefined;
  let close: (() => Promise<void>) | undefined;
  let service: ServiceProcess | undefined;

  /** A redis-server of the test's own, not started yet. */
  async function newRedis(extraArgs: string[] = []): Promise<RedisProcess> {
    const created = await unstartedRedisServer(extraArgs);
    if (typeof created === 'string') throw new Error(created);
    ({ server: redis, close } = created);
    return redis;
  }

  before(async function () {
    const probe = await unstartedRedisServer();
    if (typeof probe === 'string') return serverMissing(this, 'Redis', probe);
    await probe.close();
  });
  afterEach(async () => {
    await service?.stop();
    service = undefined;
    await close?.();
    close = undefined;
  });

  it('when Redis starts 3 s after the service, then the service waits, logs the wait once, and serves without a restart', async () => {
    redis = await newRedis();
    const { token, env } = withToken({ PLANT_STORE_STORAGE: 'redis', REDIS_URL: redis.url });

    service = await startBeforeStore(env, token, () => redis!.start());

    await expectServes(service, token);
    expect(service.output().match(/waiting for Redis at [^\n]*connection refused/g)).to.have.length(
      1,
    );
  });

  it('when Redis refuses the password, then start-up fails at once, well within the bound, with one line', async () => {
    redis = await newRedis(['--requirepass', 'right-password']);
    await redis.start();
    const url = `redis://:wrong-password@127.0.0.1:${redis.port}`;
    const { env } = withToken({ PLANT_STORE_STORAGE: 'redis', REDIS_URL: url });

    const stderr = await failsAtOnce(env);
    expect(stderr.trim().split('\n')).to.deep.equal([
      `plant-store: failed to start: Redis at 127.0.0.1:${redis.port} (REDIS_URL) refused authentication`,
    ]);
  });
});

describe('Start-up with MongoDB (FerretDB)', function () {
  this.timeout(120_000);
  let server: MongoServer | undefined;
  let service: ServiceProcess | undefined;

  before(async function () {
    server = await startStoppableMongo(this);
  });
  afterEach(async () => {
    await service?.stop();
    service = undefined;
  });
  after(async () => {
    await server?.dispose();
  });

  it('when the server starts 3 s after the service, then the service waits and serves without a restart', async () => {
    await server!.stop!();
    const { token, env } = withToken({ PLANT_STORE_STORAGE: 'mongodb', MONGODB_URL: server!.url });

    service = await startBeforeStore(env, token, () => server!.start!());

    await expectServes(service, token);
    expect(
      service.output().match(/waiting for MongoDB at [^\n]*connection refused/g),
    ).to.have.length(1);
  });

  it('when the URL cannot be parsed, then start-up fails at once with one line naming MONGODB_URL', async () => {
    const { env } = withToken({
      PLANT_STORE_STORAGE: 'mongodb',
      MONGODB_URL: 'mongodb://127.0.0.1:27017/plant_store?tls=maybe',
    });

    const stderr = await failsAtOnce(env);
    expect(stderr.trim().split('\n')).to.have.length(1);
    expect(stderr).to.match(/^plant-store: MONGODB_URL is not a valid MongoDB connection string/);
  });

  it('when the service is pinned to a core beside a CPU hog, then it still starts and serves', async function () {
    if (spawnSync('taskset', ['-c', '0', 'true']).status !== 0) {
      return serverMissing(this, 'taskset', 'cannot pin to core 0');
    }
    const hog = spawn('taskset', ['-c', '0', process.execPath, '-e', 'for(;;){}'], {
      stdio: 'ignore',
    });
    try {
      const { token, env } = withToken({
        PLANT_STORE_STORAGE: 'mongodb',
        MONGODB_URL: server!.url,
      });
      service = await startService(env, MAIN, {
        prefix: ['taskset', '-c', '0'],
        timeoutMs: 90_000,
      });

      await expectServes(service, token);
    } finally {
      hog.kill('SIGKILL');
    }
  });
});

describe('Start-up with JWTs from an identity provider', function () {
  this.timeout(60_000);
  let provider: IdentityProvider | undefined;
  let service: ServiceProcess | undefined;

  after(async () => {
    await service?.stop();
    await provider?.close();
  });

  it('when the service starts, then it does not fetch the JWKS; the first JWT does', async () => {
    provider = await IdentityProvider.start();
    service = await startService({
      PLANT_STORE_JWT_ISSUER: provider.issuer,
      PLANT_STORE_JWT_AUDIENCE: provider.audience,
      PLANT_STORE_JWT_JWKS_URL: provider.jwksUrl,
    });

    expect(provider.fetches).to.equal(0);
    const jwt = await provider.sign({ tenant: 'jwt', scope: 'plants:read' });
    expect((await get(service.port, '/plants', jwt)).status).to.equal(200);
    expect(provider.fetches).to.equal(1);
  });
});
