import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { buildService, loadConfig, TYPES, type Service } from '../../../src/index.js';
import { send } from '../../support/http-client.js';
import { startRedisServer, type RedisUnderTest } from '../../support/redis-server.js';
import { serverMissing } from '../../support/server-requirement.js';

const TOKEN = 'limiter-seam-token-0123456789';
const RATE = 5;

describe('TYPES.LimiterStore, rebound by an embedder', () => {
  const directory = mkdtempSync(join(tmpdir(), 'plant-store-limiter-seam-'));
  let redis: RedisUnderTest | undefined;
  let client: Redis | undefined;
  const services: Service[] = [];
  const servers: Server[] = [];
  const ports: number[] = [];

  before(async function () {
    const started = await startRedisServer();
    if (typeof started === 'string') return serverMissing(this, 'Redis', started);
    redis = started;
    client = new Redis(redis.url);
    const config = loadConfig({
      PLANT_STORE_TOKENS: JSON.stringify([
        { token: TOKEN, tenant: 'seam', scopes: ['plants:read'] },
      ]),
      PLANT_STORE_RATE_LIMIT: String(RATE),
      LOG_LEVEL: 'silent',
      PLANT_STORE_STORAGE: 'memory',
    });
    // Two services on the memory storage, as two processes of a host would be, counting on one
    // Redis of the host's.
    for (let i = 0; i < 2; i++) {
      const service = await buildService(config, (container) => {
        container
          .rebind(TYPES.LimiterStore)
          .toConstantValue({ kind: 'redis', client: client!, prefix: 'host:' });
      });
      services.push(service);
      const server = createServer(service.app.callback()).listen(0, '127.0.0.1');
      await once(server, 'listening');
      servers.push(server);
      ports.push((server.address() as { port: number }).port);
    }
  });
  after(async () => {
    for (const server of servers) {
      server.closeAllConnections();
      server.close();
    }
    await Promise.all(services.map((service) => service.close()));
    client?.disconnect();
    await redis?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('when two services count on the host’s Redis, then a tenant gets one limit across both, in the host’s keys', async () => {
    // All at once, alternating between the services: one window of the limit (1 s from the first
    // count) must hold them all. A burst that outlasted it (a loaded machine) proves nothing, so it
    // is sent again once the window and each service's memory of the refusal are over.
    await client!.ping();
    let statuses: number[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      if (attempt > 1) await sleep(1100);
      const started = performance.now();
      statuses = await Promise.all(
        Array.from({ length: RATE * 2 }, async (_, i) => {
          const headers: [string, string][] = [['Authorization', `Bearer ${TOKEN}`]];
          return (await send(ports[i % 2]!, 'GET', '/plants', { headers })).status;
        }),
      );
      if (performance.now() - started < 800) break;
    }

    expect(statuses.filter((status) => status === 200)).to.have.length(RATE);
    expect(statuses.filter((status) => status === 429)).to.have.length(RATE);
    expect(await client!.exists('host:limit:tenant:seam')).to.equal(1);
  });
});
