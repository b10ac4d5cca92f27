import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import type { HttpResponse } from '../../support/http-client.js';
import { Api, expectError } from '../../support/http-harness.js';
import { startRedisServer, type RedisProcess } from '../../support/redis-server.js';
import { serverMissing } from '../../support/server-requirement.js';

const run = promisify(execFile);

/** /readyz while Redis refuses writes: 503 50303, naming the plant store (the token store still serves). */
function expectNotReady(response: HttpResponse): void {
  expect(response.status).to.equal(503);
  expect(response.headers['retry-after']).to.equal('30');
  const body = JSON.parse(response.text) as { error: number; failing: string[] };
  expect([body.error, body.failing]).to.deep.equal([50303, ['plants']]);
}

describe('the service on a Redis that refuses writes (maxmemory with noeviction, MISCONF)', function () {
  this.timeout(60_000);
  let redis: RedisProcess;
  let close: (() => Promise<void>) | undefined;
  let api: Api;
  const cli = (...args: string[]) => run('redis-cli', ['-p', String(redis.port), ...args]);
  /** /readyz once it answers `status`, or after 3 s: its answer may be up to 1 s old. */
  const readyz = async (status: number): Promise<HttpResponse> => {
    const deadline = Date.now() + 3000;
    for (;;) {
      const response = await api.request('GET', '/readyz', { as: null });
      if (response.status === status || Date.now() > deadline) return response;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  before(async function () {
    // Protected configs on, so that the test can point snapshots at a directory they cannot use.
    const started = await startRedisServer(['--enable-protected-configs', 'yes']);
    if (typeof started === 'string') return serverMissing(this, 'Redis', started);
    ({ server: redis, close } = started);
    api = await Api.start({ kind: 'redis', url: redis.url });
  });
  after(async () => {
    await api?.close();
    await close?.();
  });

  it('when Redis is out of memory, then POST answers 503 50303 (never 500), reads and /readyz say so, and all recover when memory is raised', async () => {
    expect((await api.create('1', 'before')).status).to.equal(200);
    await cli('CONFIG', 'SET', 'maxmemory-policy', 'noeviction');
    await cli('CONFIG', 'SET', 'maxmemory', '1');

    const refused = await api.create('2', 'during');
    expectError(refused, 503, 50303);
    expect(refused.headers['retry-after']).to.equal('30');
    expect(await api.names()).to.deep.equal(['before']);
    expectNotReady(await readyz(503));

    await cli('CONFIG', 'SET', 'maxmemory', '0');
    expect((await readyz(200)).status).to.equal(200);
    expect((await api.create('2', 'after')).status).to.equal(200);
    expect(await api.names()).to.deep.equal(['before', 'after']);
  });

  it('when Redis cannot persist (MISCONF), then POST and DELETE answer 503 50303 and /readyz says not ready', async () => {
    api.newTenants();
    expect((await api.create('1', 'kept')).status).to.equal(200);
    // A snapshot into a directory Redis cannot write fails; stop-writes-on-bgsave-error then refuses writes.
    await cli('CONFIG', 'SET', 'dir', '/proc');
    await cli('CONFIG', 'SET', 'stop-writes-on-bgsave-error', 'yes');
    // Writes stop on a failed snapshot only while snapshots are configured.
    await cli('CONFIG', 'SET', 'save', '3600 1');
    await cli('BGSAVE').catch(() => {});
    for (
      let i = 0;
      i < 50 && !(await cli('INFO', 'persistence')).stdout.includes('rdb_last_bgsave_status:err');
      i++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    try {
      expectError(await api.create('2', 'refused'), 503, 50303);
      expectError(await api.request('DELETE', '/plants/1'), 503, 50303);
      expectNotReady(await readyz(503));
      expect(await api.names()).to.deep.equal(['kept']);
    } finally {
      await cli('CONFIG', 'SET', 'stop-writes-on-bgsave-error', 'no');
    }
    expect((await readyz(200)).status).to.equal(200);
  });
});
