import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { startStoppableMongo } from '../../support/mongo-server.js';
import { parsePrometheus, sampleValue } from '../../support/prometheus-text.js';
import { startRedisServer } from '../../support/redis-server.js';
import { serverMissing } from '../../support/server-requirement.js';
import { startService, type ServiceProcess } from '../../support/service-process.js';

const OPS = `ops-${randomUUID()}`;
const OPS_TOKENS = JSON.stringify([{ token: OPS, tenant: 'ops', scopes: ['metrics:read'] }]);

type Readiness = { status: number; body: Record<string, unknown> };

async function readiness(service: ServiceProcess): Promise<Readiness> {
  const response = await fetch(`http://127.0.0.1:${service.port}/readyz`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Asks /readyz until it answers `status`; resolves that answer. */
async function readinessBecomes(service: ServiceProcess, status: number): Promise<Readiness> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const answer = await readiness(service);
    if (answer.status === status || Date.now() > deadline) return answer;
    await sleep(100);
  }
}

/** The service's JSON log lines with this message (stdout holds only JSON lines). */
/**
 * The log lines of `message`, once the first has arrived: a line the process wrote may reach this
 * process after an HTTP answer it sent later, since its stdout is a separate pipe.
 */
async function reported(
  service: ServiceProcess,
  message: string,
): Promise<Record<string, unknown>[]> {
  await service.waitFor(new RegExp(`"msg":"${message}[":]`));
  return logged(service, message);
}

function logged(service: ServiceProcess, message: string): Record<string, unknown>[] {
  return service
    .stdout()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === message || String(line.msg).startsWith(`${message}:`));
}

/** How many outages and recoveries /metrics counts for a store. */
async function outageCounts(service: ServiceProcess, store: string): Promise<number[]> {
  const response = await fetch(`http://127.0.0.1:${service.port}/metrics`, {
    headers: { Authorization: `Bearer ${OPS}` },
  });
  const samples = parsePrometheus(await response.text());
  return ['plant_store_storage_outages_total', 'plant_store_storage_recoveries_total'].map((name) =>
    sampleValue(samples, name, { store }),
  );
}

/**
 * A server outage, as every adapter must report it: /readyz 503 naming both stores (they share
 * the server), one warn line per store however long it lasts, one info line per store once it
 * is over, and the metrics counting one outage and one recovery each.
 */
async function expectOneReportedOutage(
  service: ServiceProcess,
  stop: () => Promise<void>,
  start: () => Promise<void>,
): Promise<void> {
  expect((await readiness(service)).status).to.equal(200);

  await stop();
  const down = await readinessBecomes(service, 503);
  for (let i = 0; i < 5; i++) await readiness(service);

  expect(down).to.deep.equal({
    status: 503,
    body: { error: 50301, message: 'storage is unavailable', failing: ['plants', 'tokens'] },
  });
  for (const store of ['plant', 'token']) {
    const lines = await reported(service, `the ${store} store cannot serve`);
    expect(lines, `${store} store warnings`).to.have.length(1);
    expect(lines[0]).to.include({ level: 40, store: `${store}s` });
    expect(lines[0]!.reason).to.be.a('string').and.not.equal('');
  }

  await start();
  const up = await readinessBecomes(service, 200);
  for (let i = 0; i < 3; i++) await readiness(service);

  expect(up).to.deep.equal({ status: 200, body: { status: 'ready' } });
  for (const store of ['plant', 'token']) {
    expect(logged(service, `the ${store} store cannot serve`), store).to.have.length(1);
    const lines = await reported(service, `the ${store} store serves again`);
    expect(lines, `${store} store recoveries`).to.have.length(1);
    expect(lines[0]).to.include({ level: 30, store: `${store}s` });
    expect(await outageCounts(service, `${store}s`)).to.deep.equal([1, 1]);
  }
}

describe('Outage reports: the log, /readyz and the metrics while a store cannot serve', function () {
  this.timeout(90_000);

  /** A server of the test's own that it may stop and start; undefined when skipped. */
  interface StoppableServer {
    env: Record<string, string>;
    stop(): Promise<void>;
    start(): Promise<void>;
    dispose(): Promise<void>;
  }
  const servers: { name: string; open(context: Mocha.Context): Promise<StoppableServer | void> }[] =
    [
      {
        name: 'Redis',
        async open(context) {
          const started = await startRedisServer();
          if (typeof started === 'string') return serverMissing(context, 'Redis', started);
          const { server, close } = started;
          return {
            env: { PLANT_STORE_STORAGE: 'redis', REDIS_URL: server.url },
            stop: () => server.stop(),
            start: () => server.start(),
            dispose: close,
          };
        },
      },
      {
        name: 'MongoDB (FerretDB)',
        async open(context) {
          const server = await startStoppableMongo(context);
          return {
            env: { PLANT_STORE_STORAGE: 'mongodb', MONGODB_URL: server.url },
            stop: server.stop!,
            start: server.start!,
            dispose: () => server.dispose(),
          };
        },
      },
    ];

  for (const { name, open } of servers) {
    describe(`on ${name}`, () => {
      let server: StoppableServer | void;
      let service: ServiceProcess | undefined;

      before(async function () {
        server = await open(this);
      });
      after(async () => {
        await service?.stop();
        await server?.dispose();
      });

      it(`when ${name} stops and returns, then each store reports the outage once at warn and its end once at info`, async () => {
        const { env, stop, start } = server!;
        service = await startService({ LOG_LEVEL: 'info', PLANT_STORE_TOKENS: OPS_TOKENS, ...env });

        await expectOneReportedOutage(service, stop, start);
      });
    });
  }
});
