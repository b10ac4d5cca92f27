import { connect, type Socket } from 'node:net';
import { expect } from 'chai';
import { Api, ROLE_TOKENS } from '../../support/http-harness.js';
import { eventually, RawClient, sleep } from '../../support/raw-client.js';

const PAGE_REQUEST =
  `GET /plants?limit=1000 HTTP/1.1\r\nHost: x\r\n` +
  `Authorization: Bearer ${ROLE_TOKENS.both}\r\n\r\n`;

/**
 * 1000 plants whose names escape to six bytes a character: a page of about 1.5 MB. The kernel's
 * buffers on loopback take about one such page per connection, so clients pipeline four.
 */
async function seedBigPage(service: Api): Promise<void> {
  for (let id = 1n; id <= 1000n; id++) {
    await service.store.insert(service.tenant, { id, name: '\u0001'.repeat(256) });
  }
}

const buffered = (service: Api) =>
  service.sockets.reduce((sum, socket) => sum + (socket.destroyed ? 0 : socket.writableLength), 0);

describe('connections and output a client can hold (raw sockets)', () => {
  let service: Api | undefined;
  const clients: RawClient[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) client.destroy();
    await service?.close();
    service = undefined;
  });
  async function nonReaders(count: number, requests: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      const client = await RawClient.nonReading(service!.port);
      clients.push(client);
      client.send(PAGE_REQUEST.repeat(requests));
    }
  }

  it('when clients ask for big pages and never read, then they are destroyed after the send timeout and their output freed', async () => {
    service = await Api.start(undefined, { http: { sendTimeoutMs: 500 } });
    await seedBigPage(service);

    await nonReaders(8, 4);
    await eventually(() => buffered(service!) > 1_000_000, 2000, 'output waiting');

    await eventually(async () => (await service!.open()) === 0, 2000, 'all destroyed');
    expect(buffered(service)).to.equal(0);
  });

  it('when non-reading clients together exceed the output budget, then the longest-waiting are destroyed until it holds', async () => {
    const budget = 2_000_000;
    service = await Api.start(undefined, { http: { maxBufferedOutputBytes: budget } });
    await seedBigPage(service);

    await nonReaders(6, 4);
    // The output watch destroys at its sweeps (every second): wait for the first that has.
    await eventually(
      () => service!.sockets.some((socket) => socket.destroyed) && buffered(service!) <= budget,
      10_000,
      'the budget held',
    );

    expect(buffered(service)).to.be.at.most(budget);
    expect(await service.open()).to.be.within(1, 5);
  });

  it('when more connections arrive than the bound while each has a request in progress, then the extra ones are closed at once and the bound frees as others leave', async () => {
    service = await Api.start(undefined, { http: { maxConnections: 5 } });
    const held = await Promise.all(Array.from({ length: 5 }, () => RawClient.open(service!.port)));
    clients.push(...held);
    // A body that never arrives in full: an idle connection would give its slot up instead.
    for (const client of held) {
      client.send(
        `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ROLE_TOKENS.both}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
      );
    }
    await eventually(async () => (await service!.open()) === 5, 1000, 'five held');
    // Each request read, so in progress, before the sixth connection arrives.
    await eventually(() => service!.sockets.every((s) => s.bytesRead > 0), 1000, 'five read');

    const extra = await RawClient.open(service.port);
    clients.push(extra);
    extra.send('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await extra.ended;
    expect(extra.text).to.equal('');

    held[0]!.destroy();
    await eventually(async () => (await service!.open()) === 4, 1000, 'one left');
    const next = await RawClient.open(service.port);
    clients.push(next);
    next.send('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await next.ended;
    expect(next.response().status).to.equal(200);
  });

  it('when 1500 connections arrive while the server is busy, then the default backlog queues them all (no SYN is dropped)', async () => {
    service = await Api.start();
    const burst: Socket[] = [];
    let connected = 0;
    try {
      for (let i = 0; i < 1500; i++) {
        const socket = connect(service.port, '127.0.0.1');
        socket.on('connect', () => connected++).on('error', () => {});
        burst.push(socket);
      }
      // Keep the event loop (so the server's accept) busy while the kernel completes handshakes.
      await new Promise((resolve) => setImmediate(resolve));
      const until = Date.now() + 300;
      while (Date.now() < until);

      // A dropped SYN is retried after a second: everyone queued connects well before that.
      await sleep(500);
      expect(connected).to.equal(1500);
    } finally {
      for (const socket of burst) socket.destroy();
    }
  });
});
