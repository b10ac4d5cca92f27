import { expect } from 'chai';
import { eventually, RawClient, sleep } from '../../support/raw-client.js';
import { startWorkers, type ServiceProcess } from '../../support/service-process.js';
import { OVERRUN_REFUSAL } from '../../../src/adapters/http/server/connections.js';

const HEALTH = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n';
/** One 64 kB write of pipelined requests: past the bound of 32 waiting on any connection. */
const BURST = HEALTH.repeat(Math.floor(65_536 / HEALTH.length));
const OFFENDER = '127.0.0.8';
const NEIGHBOUR = '127.0.0.9';

describe('overrun refusals under serve --workers 2', function () {
  // Three processes start through tsx on two shared cores.
  this.timeout(150_000);
  let service: ServiceProcess | undefined;

  // The primary counts the workers' overruns over IPC: any storage does (the default here).
  before(async () => {
    service = await startWorkers({ PLANT_STORE_ACCESS_LOG: 'off' });
  });
  after(async () => {
    await service?.stop();
  });

  /** A request on a new connection from `address`: its status, 0 when refused (no answer in 2 s). */
  async function ask(address: string): Promise<number> {
    const client = await RawClient.open(service!.port, { localAddress: address });
    client.send('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await Promise.race([client.ended, sleep(2000)]);
    client.destroy();
    return client.text === '' ? 0 : client.response().status;
  }

  it('when an address pipelines past the bound as often as the refusal counts, on connections the two workers share, then both workers refuse its new connections and another address is served', async () => {
    expect(await ask(OFFENDER)).to.equal(200);
    for (let i = 0; i < OVERRUN_REFUSAL.overruns; i++) {
      const offender = await RawClient.open(service!.port, { localAddress: OFFENDER });
      offender.send(BURST);
      await offender.ended;
      offender.destroy();
    }
    // The primary counts the overruns the workers report and tells both: wait until one refuses.
    await eventually(async () => (await ask(OFFENDER)) === 0, 5000, 'the offender refused');

    const refused = [];
    for (let i = 0; i < 6; i++) refused.push(await ask(OFFENDER));

    expect(refused).to.deep.equal(Array(6).fill(0));
    expect(await ask(NEIGHBOUR)).to.equal(200);
  });
});
