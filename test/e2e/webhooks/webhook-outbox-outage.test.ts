import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { startRedisServer } from '../../support/redis-server.js';
import { serverMissing } from '../../support/server-requirement.js';
import {
  CLI,
  runProgram,
  startService,
  type ServiceProcess,
} from '../../support/service-process.js';

// Several polls of the outbox (one a second) while Redis is down.
const OUTAGE_MS = 3500;
const UNAVAILABLE = 'webhook outbox unavailable; trying again';
const AVAILABLE = 'webhook outbox available again';

describe('Webhook outbox outages on Redis, as the log reports them', function () {
  this.timeout(60_000);
  let started: Awaited<ReturnType<typeof startRedisServer>> | undefined;
  let service: ServiceProcess | undefined;

  before(async function () {
    started = await startRedisServer();
    if (typeof started === 'string') return serverMissing(this, 'Redis', started);
  });
  afterEach(async () => {
    await service?.stop();
    service = undefined;
  });
  after(async () => {
    if (typeof started === 'object') await started.close();
  });

  const env = () => {
    const { server } = started as Exclude<typeof started, string | undefined>;
    return { PLANT_STORE_STORAGE: 'redis', REDIS_URL: server.url, LOG_LEVEL: 'info' };
  };
  /** The service's log lines of `message`. */
  const lines = (message: string): string[] =>
    service!
      .stdout()
      .split('\n')
      .filter((line) => line.includes(`"msg":"${message}"`));
  /** Stops Redis for a few polls, starts it again, and waits until the plant store serves. */
  const outage = async (): Promise<void> => {
    const { server } = started as Exclude<typeof started, string | undefined>;
    await server.stop();
    await sleep(OUTAGE_MS);
    await server.start();
    await service!.waitFor(/"msg":"the plant store serves again"/);
  };

  it('when Redis stops for a few seconds and no webhook subscription exists, then the outbox logs nothing', async () => {
    service = await startService(env());
    await outage();
    // A poll after the plant store's recovery, which would end the outbox's outage too.
    await sleep(1500);
    expect(service.output()).to.match(/"msg":"the plant store cannot serve/);
    expect(lines(UNAVAILABLE)).to.deep.equal([]);
    expect(lines(AVAILABLE)).to.deep.equal([]);
  });

  it('when Redis stops for a few seconds and a subscription exists, then the outbox logs one line as the outage starts and one as it ends', async () => {
    const added = await runProgram(
      [...CLI, 'webhooks', 'add', '--tenant', 'outage', '--url', 'http://127.0.0.1:1/hook'],
      { ...env(), PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true' },
    );
    expect(added.code, added.stderr).to.equal(0);
    service = await startService(env());
    await outage();
    await service.waitFor(new RegExp(AVAILABLE));
    const unavailable = lines(UNAVAILABLE);
    expect(unavailable).to.have.length(1);
    expect(JSON.parse(unavailable[0]!)).to.include({ level: 40 }).and.not.have.property('err');
    expect(lines(AVAILABLE)).to.have.length(1);
  });
});
