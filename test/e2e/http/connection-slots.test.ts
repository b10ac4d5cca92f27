import { expect } from 'chai';
import { Api, ROLE_TOKENS } from '../../support/http-harness.js';
import { eventually, RawClient, sleep } from '../../support/raw-client.js';

const HEALTH = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n';
const PARTIAL = 'GET /plants HTTP/1.1\r\nHost: x\r\n';

/** One loopback address per client role: the server tells them apart as distinct clients. */
const HOG = '127.0.0.2';
const OTHER = '127.0.0.3';

describe('connection slots per client address (raw sockets)', () => {
  let service: Api | undefined;
  const clients: RawClient[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) client.destroy();
    await service?.close();
    service = undefined;
  });

  async function open(address: string, count: number, first?: string): Promise<RawClient[]> {
    const opened: RawClient[] = [];
    for (let i = 0; i < count; i++) {
      const client = await RawClient.open(service!.port, { localAddress: address });
      clients.push(client);
      opened.push(client);
      if (first !== undefined) client.send(first);
    }
    return opened;
  }
  /** A request from `address` on a new connection: its status, 0 when it got no answer. */
  async function ask(address: string): Promise<number> {
    const [client] = await open(
      address,
      1,
      'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );
    await Promise.race([client!.ended, sleep(2000)]);
    return client!.text === '' ? 0 : client!.response().status;
  }
  const openOn = (address: string) =>
    service!.sockets.filter((s) => !s.destroyed && s.remoteAddress === address).length;

  it('when one address opens more connections than its bound, then the extra ones are closed at once and another address is served', async () => {
    service = await Api.start(undefined, {
      http: { maxConnections: 100, maxConnectionsPerAddress: 4 },
    });
    await open(HOG, 10, PARTIAL);
    await eventually(() => openOn(HOG) === 4, 1000, 'four held');
    await sleep(100);

    expect(openOn(HOG)).to.equal(4);
    expect(await ask(OTHER)).to.equal(200);
  });

  it('when one address holds every slot with partial headers, then another address takes the slot of one of them', async () => {
    service = await Api.start(undefined, {
      http: { maxConnections: 10, maxConnectionsPerAddress: 10 },
    });
    await open(HOG, 10, PARTIAL);
    await eventually(() => openOn(HOG) === 10, 1000, 'ten held');

    for (let i = 0; i < 5; i++) expect(await ask(OTHER)).to.equal(200);
    expect(openOn(HOG)).to.be.at.most(10);
  });

  it('when one address holds every slot with idle keep-alive connections, then another address takes the slot of one of them', async () => {
    service = await Api.start(undefined, {
      http: { maxConnections: 10, maxConnectionsPerAddress: 10 },
    });
    const hog = await open(HOG, 10, HEALTH);
    await eventually(() => hog.every((c) => c.text.endsWith('{"status":"ok"}')), 1000, 'answered');

    for (let i = 0; i < 5; i++) expect(await ask(OTHER)).to.equal(200);
  });

  it('when every slot has a request in progress, then a new connection is closed at once and none in progress is touched', async () => {
    service = await Api.start(undefined, {
      http: { maxConnections: 4, maxConnectionsPerAddress: 4 },
    });
    // Bodies that never arrive in full: each connection has a request in progress.
    const held = await open(
      HOG,
      4,
      `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ROLE_TOKENS.both}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
    );
    await eventually(() => openOn(HOG) === 4, 1000, 'four held');
    await sleep(100);

    expect(await ask(OTHER)).to.equal(0);
    expect(held.every((c) => !c.socket.destroyed && c.text === '')).to.equal(true);
  });

  it('when one address opens 4100 connections with partial headers under the defaults, then another address is served', async () => {
    service = await Api.start();
    const opening: Promise<RawClient>[] = [];
    for (let i = 0; i < 4100; i++) {
      opening.push(
        RawClient.open(service.port, { localAddress: HOG }).then((client) => {
          clients.push(client);
          client.send(PARTIAL);
          return client;
        }),
      );
      if (i % 200 === 199) await Promise.allSettled(opening.splice(0));
    }
    await Promise.allSettled(opening);
    await sleep(200);

    expect(openOn(HOG)).to.equal(128);
    for (let i = 0; i < 20; i++) expect(await ask(OTHER)).to.equal(200);
  });
});
