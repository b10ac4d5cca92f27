import { expect } from 'chai';
import { Api, ROLE_TOKENS } from '../../support/http-harness.js';
import { eventually, RawClient } from '../../support/raw-client.js';

const LIMITS = {
  headersTimeoutMs: 400,
  requestTimeoutMs: 800,
  keepAliveTimeoutMs: 300,
  lingerMs: 200,
};
const post = (length: number) =>
  `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ROLE_TOKENS.both}\r\n` +
  `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

describe('closing connections (raw sockets)', () => {
  let service: Api;
  const clients: RawClient[] = [];
  beforeEach(async () => (service = await Api.start(undefined, { http: LIMITS })));
  afterEach(async () => {
    for (const client of clients.splice(0)) client.destroy();
    await service.close();
  });
  const open = async () => {
    const client = await RawClient.open(service.port);
    clients.push(client);
    return client;
  };

  it('when clients send garbage and then hold their side open, then each gets 400 40000 and the server destroys every connection within the linger', async () => {
    // Default timeouts, far longer than the linger: only the lingering close can free the sockets.
    await service.close();
    service = await Api.start(undefined, { http: { lingerMs: LIMITS.lingerMs } });
    const attackers = await Promise.all(Array.from({ length: 50 }, open));
    for (const client of attackers) client.send('GARBAGE\r\n\r\n');
    await Promise.all(attackers.map((client) => client.ended));

    for (const client of attackers) {
      expect(client.response()).to.include({ status: 400 });
      expect(client.response().body).to.deep.include({ error: 40000 });
    }
    // The clients never close: only the server's own destroy can free the descriptors.
    await eventually(async () => (await service.open()) === 0, LIMITS.lingerMs + 500, 'all closed');
  });

  it('when a connection sends nothing, then it gets 408 40801 after the headers timeout and is destroyed', async () => {
    const client = await open();
    const started = Date.now();

    await client.ended;

    expect(Date.now() - started).to.be.within(LIMITS.headersTimeoutMs - 50, 2000);
    expect(client.response()).to.deep.include({
      status: 408,
      body: { error: 40801, message: 'the request did not arrive in time' },
    });
    await eventually(async () => (await service.open()) === 0, LIMITS.lingerMs + 500, 'closed');
  });

  it('when headers dribble in slower than the headers timeout, then 408 40801 ends the request in time', async () => {
    const client = await open();
    const header = 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ';
    let sent = 0;
    const dribble = setInterval(() => client.send(header[sent++ % header.length]!), 50);
    const started = Date.now();

    await client.ended;
    clearInterval(dribble);

    expect(Date.now() - started).to.be.below(2000);
    expect(client.response().status).to.equal(408);
    await eventually(async () => (await service.open()) === 0, LIMITS.lingerMs + 500, 'closed');
  });

  it('when a body dribbles in slower than the request timeout, then 408 40801 ends it in time', async () => {
    const client = await open();
    client.send(`${post(1000)}{"id":1,`);
    const dribble = setInterval(() => client.send(' '), 100);
    const started = Date.now();

    await client.ended;
    clearInterval(dribble);

    expect(Date.now() - started).to.be.within(LIMITS.requestTimeoutMs - 200, 2500);
    expect(client.response()).to.deep.include({
      status: 408,
      body: { error: 40801, message: 'the request did not arrive in time' },
    });
    await eventually(async () => (await service.open()) === 0, LIMITS.lingerMs + 500, 'closed');
  });

  for (const idleTimeoutMs of [500, LIMITS.requestTimeoutMs]) {
    it(`when a body stalls after 7 of 100 bytes and the idle timeout is ${idleTimeoutMs} ms, then 408 40801, not a bare close`, async () => {
      await service.close();
      service = await Api.start(undefined, { http: { ...LIMITS, idleTimeoutMs } });
      const client = await open();
      client.send(`${post(100)}{"id":1`);
      const started = Date.now();

      await client.ended;

      expect(Date.now() - started).to.be.below(2500);
      expect(client.response()).to.deep.include({
        status: 408,
        body: { error: 40801, message: 'the request did not arrive in time' },
      });
      await eventually(async () => (await service.open()) === 0, LIMITS.lingerMs + 500, 'closed');
    });
  }

  it('when a keep-alive connection stays idle after an answer, then it is destroyed after the keep-alive timeout', async () => {
    const client = await open();
    client.send('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await eventually(() => client.text.endsWith('{"status":"ok"}'), 2000, 'answered');
    expect(client.response().status).to.equal(200);

    await client.ended;

    await eventually(async () => (await service.open()) === 0, 500, 'closed');
  });
});
