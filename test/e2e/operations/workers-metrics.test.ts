import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { send } from '../../support/http-client.js';
import { parsePrometheus, sampleValue, type Sample } from '../../support/prometheus-text.js';
import { startRedisServer, type RedisUnderTest } from '../../support/redis-server.js';
import { serverMissing } from '../../support/server-requirement.js';
import { CLI, startService, type ServiceProcess } from '../../support/service-process.js';

const TOKEN = `workers-metrics-${randomUUID()}`;
const REQUESTS = 200;
const WORKER_LISTENING = /"worker":(\d+),"msg":"listening"/g;

describe('GET /metrics under plant-store serve --workers 2, on Redis', function () {
  // Three processes start through tsx on two shared cores.
  this.timeout(90_000);
  let redis: RedisUnderTest | undefined;
  let service: ServiceProcess | undefined;

  before(async function () {
    const started = await startRedisServer();
    if (typeof started === 'string') return serverMissing(this, 'Redis', started);
    redis = started;
    service = await startService(
      {
        PLANT_STORE_STORAGE: 'redis',
        REDIS_URL: redis.url,
        LOG_LEVEL: 'info',
        PLANT_STORE_ACCESS_LOG: 'off',
        PLANT_STORE_TOKENS: JSON.stringify([
          { token: TOKEN, tenant: 'metrics', scopes: ['plants:read', 'metrics:read'] },
        ]),
      },
      [...CLI, 'serve', '--workers', '2'],
    );
    await service.waitFor(/"worker":\d+,"msg":"listening"[\s\S]*"worker":\d+,"msg":"listening"/);
  });
  after(async () => {
    await service?.stop();
    await redis?.close();
  });

  // A connection of its own each time: node:cluster hands connections to the workers in turn.
  const call = (path: string) =>
    send(service!.port, 'GET', path, {
      headers: [
        ['Authorization', `Bearer ${TOKEN}`],
        ['Connection', 'close'],
      ],
    });
  const scrape = async (): Promise<Sample[]> => {
    const response = await call('/metrics');
    expect(response.status).to.equal(200);
    expect(response.headers['content-type']).to.match(/^text\/plain; version=0\.0\.4/);
    return parsePrometheus(response.text);
  };
  const listed = (samples: Sample[]) =>
    sampleValue(samples, 'plant_store_http_request_duration_seconds_count', {
      method: 'GET',
      route: '/plants',
      status_class: '2xx',
    });

  it('when 200 requests are spread over the workers, then every scrape on the service’s port counts all 200, and per-worker series say which worker', async () => {
    for (let i = 0; i < REQUESTS / 20; i++) {
      const answers = await Promise.all(Array.from({ length: 20 }, () => call('/plants')));
      for (const answer of answers) expect(answer.status).to.equal(200);
    }

    const workers = [...service!.output().matchAll(WORKER_LISTENING)].map((m) => m[1]);
    expect(new Set(workers).size).to.equal(2);
    for (let i = 0; i < 6; i++) {
      const samples = await scrape();
      expect(listed(samples)).to.equal(REQUESTS);
      const inFlight = samples.filter((s) => s.name === 'plant_store_http_requests_in_flight');
      expect(inFlight.map((s) => s.labels.worker).sort()).to.deep.equal(['1', '2']);
      const cpu = samples.filter((s) => s.name === 'plant_store_process_cpu_user_seconds_total');
      expect(cpu.map((s) => s.labels.worker).sort()).to.deep.equal(['1', '2']);
    }
  });
});
