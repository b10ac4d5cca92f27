import { createServer, type Server } from 'node:net';
import { expect } from 'chai';
import { startMongoServer } from '../../support/mongo-server.js';
import { useRedis } from '../../support/redis-server.js';
import { suiteServer } from '../../support/server-requirement.js';
import { MAIN, runProgram } from '../../support/service-process.js';

/** A loopback port held by another listener for the suite. */
function occupiedPort(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const holder = createServer();
    holder.once('error', reject);
    holder.listen(0, '127.0.0.1', () => resolve(holder));
  });
}

/**
 * Runs the service on a port another listener holds; resolves its stderr once it exited 1 with
 * exactly one line: the reason, and no stack of an abort the failed start caused itself.
 */
async function expectOneLine(holder: Server, env: Record<string, string>): Promise<void> {
  const { port } = holder.address() as { port: number };
  const { code, stderr } = await runProgram(MAIN, {
    ...env,
    PORT: String(port),
    PLANT_STORE_TOKENS: '[{"token":"port-in-use-token","tenant":"t","scopes":["plants:read"]}]',
  });
  expect(code).to.equal(1);
  expect(stderr).to.equal(
    `plant-store: failed to start: cannot listen on HOST 127.0.0.1, PORT ${port} (EADDRINUSE)\n`,
  );
}

describe('Start-up on a port in use', function () {
  this.timeout(60_000);
  let holder: Server;
  before(async () => (holder = await occupiedPort()));
  after(() => new Promise((resolve) => holder.close(resolve)));

  it('when the storage is memory, then the service exits 1 with one line', async () => {
    await expectOneLine(holder, {});
  });

  describe('with Redis', () => {
    const redis = suiteServer('Redis', useRedis, (server) => server.close());

    it('when the storage is Redis, then the service exits 1 with one line and no AbortError stack', async () => {
      await expectOneLine(holder, { PLANT_STORE_STORAGE: 'redis', REDIS_URL: redis().url });
    });
  });

  describe('with MongoDB', () => {
    const mongo = suiteServer('MongoDB', startMongoServer, (server) => server.dispose());

    it('when the storage is MongoDB, then the service exits 1 with one line and no AbortError stack', async () => {
      await expectOneLine(holder, { PLANT_STORE_STORAGE: 'mongodb', MONGODB_URL: mongo().url });
    });
  });
});
