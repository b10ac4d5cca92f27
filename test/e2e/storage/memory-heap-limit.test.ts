import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { startService, type ServiceProcess } from '../../support/service-process.js';

const TOKEN = `heap-${randomUUID()}`;
// Outside Latin-1, so V8 keeps two bytes a character: the heap fills in fewer requests.
const NAME = '€'.repeat(240);

describe('the memory store near its heap limit, as a process with --max-old-space-size=56', function () {
  // Filling even a small heap over HTTP takes a while on shared cores.
  this.timeout(300_000);
  let service: ServiceProcess;

  before(async () => {
    service = await startService({
      NODE_OPTIONS: '--max-old-space-size=56',
      PLANT_STORE_STORAGE: 'memory',
      // 36.4 of 56 MiB: above what Node 20 and 24 hold once started with every storage's code
      // loaded (Node 24 held more than 28.6 MiB, so its first create was refused), and a lower
      // share than the default 85 %, which fills sooner on shared cores; the guard is the same.
      PLANT_STORE_MEMORY_HEAP_LIMIT_PERCENT: '65',
      PLANT_STORE_TOKENS: JSON.stringify([
        { token: TOKEN, tenant: 'heap', scopes: ['plants:read', 'plants:write'] },
      ]),
    });
  });
  after(() => service?.stop());

  // A connection a client reuses just as the server closes it can be reset (the keep-alive race
  // of HTTP/1.1, more likely while a nearly full heap slows the process down). That is not what
  // this test is about: such a request is sent again once on a new connection, provided the
  // process is still running. A crash fails the test, with what the process wrote.
  let resets = 0;
  const call = async (method: string, path: string, body?: string): Promise<Response> => {
    const send = (fresh: boolean) =>
      fetch(`http://127.0.0.1:${service.port}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${TOKEN}`,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
          ...(fresh ? { Connection: 'close' } : {}),
        },
        ...(body === undefined ? {} : { body }),
      });
    try {
      return await send(false);
    } catch {
      expect(service.running(), `the service exited:\n${service.output()}`).to.equal(true);
      resets++;
      return send(true);
    }
  };
  afterEach(function () {
    if (this.currentTest?.state === 'failed') console.error(service.output());
  });

  it('when one tenant creates until refused, then it gets 503 50303 and the process keeps serving', async () => {
    let next = 0;
    let refused: Response | undefined;
    let stored = 0;
    // Sixteen callers at once, until one is refused (or far more plants than the heap can hold).
    const caller = async () => {
      while (refused === undefined && next < 2_000_000) {
        const id = next++;
        const response = await call('POST', '/plants', `{"id":${id},"name":"${NAME}${id}"}`);
        if (response.status === 200) {
          stored++;
          await response.arrayBuffer();
          continue;
        }
        refused ??= response;
      }
    };
    await Promise.all(Array.from({ length: 16 }, caller));

    expect(refused, 'no create was refused').to.not.equal(undefined);
    expect(stored, 'plants stored before the heap filled').to.be.above(100);
    expect(refused!.status).to.equal(503);
    expect(await refused!.json()).to.include({ error: 50303 });
    expect(refused!.headers.get('retry-after')).to.equal('30');
    // Later creates are refused or, once a collection freed enough, stored: never a 500 or a crash.
    for (let i = 0; i < 20; i++) {
      const again = await call('POST', '/plants', `{"id":${-1 - i},"name":"late"}`);
      expect([200, 503]).to.include(again.status);
      if (again.status === 503) expect(await again.json()).to.include({ error: 50303 });
      else await again.arrayBuffer();
    }
    const [health, ready, page] = await Promise.all([
      call('GET', '/healthz'),
      call('GET', '/readyz'),
      call('GET', '/plants?limit=3'),
    ]);
    expect(health.status).to.equal(200);
    // Readiness reads the heap afresh: full (503 50303) or, after a collection, ready again.
    expect([200, 503]).to.include(ready.status);
    if (ready.status === 503) expect(await ready.json()).to.include({ error: 50303 });
    expect(page.status).to.equal(200);
    expect(await page.json()).to.have.length(3);
    expect(service.running(), service.output()).to.equal(true);
    expect(resets, 'connections reset by the server').to.be.below(3);
  });
});
