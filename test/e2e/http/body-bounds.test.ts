import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { BODY_LIMIT_BYTES } from '../../../src/adapters/http/error-catalogue.js';
import { Api, ROLE_TOKENS } from '../../support/http-harness.js';
import { eventually, RawClient } from '../../support/raw-client.js';

const AUTH = `Authorization: Bearer ${ROLE_TOKENS.both}\r\n`;
const TEN_MIB = 10 * 1024 * 1024;
/** What the server may read of a body it refuses: far below the megabytes offered. */
const READ_BOUND = 1024 * 1024;

/** Writes `total` bytes of `chunk` as fast as the connection takes them, until it closes. */
function pump(client: RawClient, chunk: Buffer, total: number): void {
  let sent = 0;
  const more = () => {
    while (sent < total && !client.socket.destroyed) {
      sent += chunk.length;
      if (!client.socket.write(chunk)) return void client.socket.once('drain', more);
    }
  };
  more();
}

describe('bytes a client can make the server read (raw sockets)', () => {
  let service: Api;
  const clients: RawClient[] = [];
  beforeEach(async () => (service = await Api.start()));
  afterEach(async () => {
    for (const client of clients.splice(0)) client.destroy();
    await service.close();
  });

  async function offer(head: string, chunk: Buffer, total: number): Promise<RawClient> {
    const client = await RawClient.open(service.port);
    clients.push(client);
    client.send(head);
    pump(client, chunk, total);
    await client.ended;
    return client;
  }
  /** Bytes the server read on its one connection, once it has closed it. */
  async function readByServer(): Promise<number> {
    await eventually(async () => (await service.open()) === 0, 2000, 'connection closed');
    expect(service.sockets).to.have.length(1);
    return service.sockets[0]!.bytesRead;
  }

  it('when a gzip body of empty members goes past the limit as received, then 413 41301 at once, and the rest is not read', async () => {
    const emptyMembers = Buffer.concat(Array.from({ length: 5000 }, () => gzipSync('')));
    const started = Date.now();

    const client = await offer(
      `POST /plants HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Type: application/json\r\n` +
        'Content-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n',
      Buffer.concat([
        Buffer.from(`${emptyMembers.length.toString(16)}\r\n`),
        emptyMembers,
        Buffer.from('\r\n'),
      ]),
      200 * 1024 * 1024,
    );

    expect(client.response()).to.deep.include({ status: 413 });
    expect(client.response().body).to.deep.include({ error: 41301 });
    expect(client.response().headers).to.match(/\r\nConnection: close\r\n/i);
    expect(Date.now() - started).to.be.below(2000);
    expect(await readByServer()).to.be.below(READ_BOUND);
  });

  it('when a gzip body decodes past the limit and is cut short, then 413 41301, and the process lives on', async () => {
    // Just over the limit once decoded, so the decoder still reaches the cut after the refusal.
    const whole = gzipSync(`{"id":1,"name":"${'a'.repeat(70_000)}"}`);
    const cut = whole.subarray(0, whole.length - 1);

    const client = await offer(
      `POST /plants HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Type: application/json\r\n` +
        `Content-Encoding: gzip\r\nContent-Length: ${cut.length}\r\n\r\n`,
      cut,
      cut.length,
    );
    // The decoder sees the cut after the answer; unhandled, its error would end the process.
    await new Promise((resolve) => setTimeout(resolve, 200));

    expect(client.response().body).to.deep.include({ error: 41301 });
    const next = await RawClient.open(service.port);
    clients.push(next);
    next.send('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await next.ended;
    expect(next.response().status).to.equal(200);
  });

  it('when a gzip body announces a Content-Length over the limit, then 413 41301 before any of it is read', async () => {
    const client = await offer(
      `POST /plants HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Type: application/json\r\n` +
        `Content-Encoding: gzip\r\nContent-Length: ${BODY_LIMIT_BYTES + 1}\r\n\r\n`,
      Buffer.alloc(BODY_LIMIT_BYTES + 1),
      BODY_LIMIT_BYTES + 1,
    );

    expect(client.response().body).to.deep.include({ error: 41301 });
  });

  it('when an unauthenticated POST carries 10 MiB, then 401 and the connection is closed after reading at most the bound', async () => {
    const client = await offer(
      'POST /plants HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        `Content-Length: ${TEN_MIB}\r\n\r\n`,
      Buffer.alloc(64 * 1024, 0x20),
      TEN_MIB,
    );

    expect(client.response().body).to.deep.include({ error: 40101 });
    expect(client.response().headers).to.match(/\r\nConnection: close\r\n/i);
    expect(await readByServer()).to.be.below(READ_BOUND);
  });

  for (const [method, path] of [
    ['GET', '/healthz'],
    ['DELETE', '/plants/1'],
    // Answered through Koa: the request observer closes it.
    ['GET', '/docs'],
  ] as const) {
    it(`when ${method} ${path} carries a 10 MiB body, then it is answered and the connection closed without reading the body`, async () => {
      const client = await offer(
        `${method} ${path} HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Length: ${TEN_MIB}\r\n\r\n`,
        Buffer.alloc(64 * 1024, 0x20),
        TEN_MIB,
      );

      expect(client.response().status).to.be.oneOf([200, 404]);
      expect(client.response().headers).to.match(/\r\nConnection: close\r\n/i);
      expect(await readByServer()).to.be.below(READ_BOUND);
    });
  }

  it('when a small POST body arrives whole, then the plant is created and the connection stays open', async () => {
    const body = `{"id":1,"name":"a","tag":"${' '.repeat(10)}"}`;
    const client = await RawClient.open(service.port);
    clients.push(client);
    client.send(
      `POST /plants HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\n\r\n${body}`,
    );

    await eventually(() => client.text.includes('\r\n\r\n{'), 2000, 'answer');

    expect(client.response().status).to.equal(200);
    expect(client.response().headers).to.match(/\r\nConnection: keep-alive\r\n/i);
    expect(await service.open()).to.equal(1);
  });
});
