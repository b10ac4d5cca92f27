import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import {
  PlantStoreError,
  PlantStoreTimeoutError,
  type RetryEvent,
} from '../../../packages/client/src/index.js';
import { Api } from '../../support/http-harness.js';
import { startRedisServer, type RedisProcess } from '../../support/redis-server.js';
import { serverMissing } from '../../support/server-requirement.js';
import { clientOf, expectHttpError, rejection } from './support/client-suite.js';

const elapsedSince = (start: number): number => performance.now() - start;

describe('plant-store/client retries 429 with the service rate limit (memory)', () => {
  let api: Api;
  before(async () => {
    // One request a second per tenant: the second request in a row is refused with Retry-After: 1.
    api = await Api.start({ kind: 'memory' }, { rateLimit: 1 });
  });
  after(async () => api?.close());
  beforeEach(() => api.newTenants());

  it('when the tenant is over its rate limit, then the client waits Retry-After and succeeds', async () => {
    const events: RetryEvent[] = [];
    const client = clientOf(api, 'both', { onRetry: (event) => events.push(event) });
    await client.createPlant({ id: 1n, name: 'first' });
    const start = performance.now();

    expect(await client.createPlant({ id: 2n, name: 'second' })).to.deep.equal({ name: 'second' });

    expect(elapsedSince(start)).to.be.at.least(950);
    expect(events.map(({ status, code, retry, delayMs }) => ({ status, code, retry, delayMs })))
      .to.have.length.at.least(1)
      .and.deep.include({ status: 429, code: 42901, retry: 1, delayMs: 1000 });
  });

  it('when retries are off, then the 429 is a PlantStoreHttpError with its Retry-After', async () => {
    const client = clientOf(api, 'both', { retry: false });
    await client.listPlants();

    const error = expectHttpError(await rejection(client.listPlants()), 429, 42901);

    expect([error.retryAfterMs, error.attempts, error.retried]).to.deep.equal([1000, 1, []]);
  });

  it('when Retry-After asks for more than maxDelayMs, then the 429 is given at once', async () => {
    const client = clientOf(api, 'both', { retry: { maxDelayMs: 500 } });
    await client.listPlants();
    const start = performance.now();

    expectHttpError(await rejection(client.listPlants()), 429, 42901);

    expect(elapsedSince(start)).to.be.below(500);
  });

  it('when the wait would outlast the timeout, then the 429 is given at once, not a timeout', async () => {
    const client = clientOf(api, 'both', { timeoutMs: 800 });
    await client.listPlants();
    const start = performance.now();

    expectHttpError(await rejection(client.listPlants()), 429, 42901);

    expect(elapsedSince(start)).to.be.below(500);
  });

  it('when the caller aborts during the wait, then the call rejects with the reason at once', async () => {
    const client = clientOf(api, 'both');
    await client.listPlants();
    const controller = new AbortController();
    const reason = new Error('the user left');
    const start = performance.now();

    const call = client.listPlants({ signal: controller.signal });
    setTimeout(() => controller.abort(reason), 100);

    expect(await rejection(call)).to.equal(reason);
    expect(elapsedSince(start)).to.be.below(700);
  });
});

describe('plant-store/client on a Redis that stops, hangs and comes back', function () {
  // Each outage waits for the store's 2 s deadline or the service's Retry-After of 1 s.
  this.timeout(30_000);
  let redis: RedisProcess;
  let close: (() => Promise<void>) | undefined;
  let api: Api;
  let down = false;
  const stopRedis = async (): Promise<void> => {
    down = true;
    await redis.stop();
  };
  const startRedis = (): Promise<void> => {
    down = false;
    return redis.start();
  };

  before(async function () {
    const started = await startRedisServer();
    if (typeof started === 'string') return serverMissing(this, 'Redis', started);
    ({ server: redis, close } = started);
    api = await Api.start({ kind: 'redis', url: redis.url, prefix: 'client-retries:' });
  });
  after(async () => {
    redis?.resume();
    await api?.close();
    await close?.();
  });
  beforeEach(async () => {
    api.newTenants();
    // After a restart the service reconnects by itself; each test starts from a store that answers.
    for (let tries = 0; ; tries++) {
      try {
        return await api.store.ping();
      } catch (error) {
        if (tries > 100) throw error;
        await sleep(50);
      }
    }
  });
  afterEach(async () => {
    redis.resume();
    if (down) await startRedis();
  });

  it('when Redis stops and starts again, then a create retried after 503 succeeds', async () => {
    const events: RetryEvent[] = [];
    let restarted: Promise<void> | undefined;
    const client = clientOf(api, 'both', {
      retry: { retries: 8 },
      timeoutMs: 20_000,
      onRetry: (event) => {
        events.push(event);
        restarted ??= startRedis();
      },
    });
    await stopRedis();

    const plant = await client.createPlant({ id: 2n ** 63n - 1n, name: 'after the outage' });

    await restarted;
    expect(plant).to.deep.equal({ name: 'after the outage' });
    expect(events.length).to.be.at.least(1);
    expect(events.map((e) => [e.status, e.code])).to.deep.equal(events.map(() => [503, 50301]));
    const names: string[] = [];
    for await (const { name } of client.allPlants()) names.push(name);
    expect(names).to.deep.equal(['after the outage']);
  });

  it('when Redis stays down, then retries stop after the bound with the last 503', async () => {
    const client = clientOf(api, 'both', { retry: { retries: 2 } });
    await stopRedis();

    const error = expectHttpError(await rejection(client.listPlants()), 503, 50301);

    expect([error.attempts, error.retried, error.retryAfterMs]).to.deep.equal([
      3,
      [503, 503],
      1000,
    ]);
  });

  it('when Redis hangs longer than the timeout, then a PlantStoreTimeoutError comes at the timeout', async () => {
    const client = clientOf(api, 'both', { timeoutMs: 300 });
    redis.pause();
    const start = performance.now();

    const error = await rejection(client.listPlants());

    expect(error).to.be.instanceOf(PlantStoreTimeoutError).and.instanceOf(PlantStoreError);
    expect((error as PlantStoreTimeoutError).timeoutMs).to.equal(300);
    expect(elapsedSince(start)).to.be.within(250, 1500);
  });

  it('when the caller aborts a request in flight, then it rejects with an AbortError at once', async () => {
    const client = clientOf(api, 'both');
    redis.pause();
    const start = performance.now();

    const error = await rejection(client.listPlants({ signal: AbortSignal.timeout(150) }));

    expect((error as Error).name).to.equal('TimeoutError');
    expect(elapsedSince(start)).to.be.below(1500);
    const aborted = new AbortController();
    aborted.abort();
    expect(
      ((await rejection(client.listPlants({ signal: aborted.signal }))) as Error).name,
    ).to.equal('AbortError');
  });

  it('when a create times out in the store but lands, then the retry answers 409 after a 503: the documented ambiguity', async () => {
    let resumed = false;
    const client = clientOf(api, 'both', {
      retry: { retries: 3 },
      onRetry: () => {
        // The insert waits in Redis's socket; once it runs, the plant exists.
        if (!resumed) redis.resume();
        resumed = true;
      },
    });
    redis.pause();

    const error = expectHttpError(
      await rejection(client.createPlant({ id: 42n, name: 'maybe mine' })),
      409,
      40901,
    );

    expect(error.retried).to.deep.equal([503]);
    const names: string[] = [];
    for await (const { name } of client.allPlants()) names.push(name);
    expect(names).to.deep.equal(['maybe mine']);
  });
});
