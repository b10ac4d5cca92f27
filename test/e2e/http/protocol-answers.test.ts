import { expect } from 'chai';
import { Api, ROLE_TOKENS } from '../../support/http-harness.js';
import { eventually, RawClient } from '../../support/raw-client.js';

const AUTH = `Authorization: Bearer ${ROLE_TOKENS.both}\r\n`;

describe('answers Node would give by itself (raw sockets)', () => {
  let service: Api;
  const clients: RawClient[] = [];
  beforeEach(async () => (service = await Api.start(undefined, { http: { lingerMs: 200 } })));
  afterEach(async () => {
    for (const client of clients.splice(0)) client.destroy();
    await service.close();
  });

  async function exchange(request: string): Promise<RawClient> {
    const client = await RawClient.open(service.port);
    clients.push(client);
    client.send(request);
    await client.ended;
    return client;
  }
  const closedByServer = () =>
    eventually(async () => (await service.open()) === 0, 1000, 'connection closed');

  it('when Expect names anything but 100-continue, then 417 41701 with an Error body, and the connection closes', async () => {
    const client = await exchange(`GET /plants HTTP/1.1\r\nHost: x\r\n${AUTH}Expect: foo\r\n\r\n`);

    expect(client.response()).to.deep.include({
      status: 417,
      body: { error: 41701, message: 'the Expect header is not supported; only 100-continue is' },
    });
    expect(client.response().headers).to.match(
      /\r\nContent-Type: application\/json; charset=utf-8/,
    );
    await closedByServer();
  });

  for (const expectation of ['100-continue, foo', 'foo, 100-continue', '100-continue,', 'foo']) {
    it(`when Expect is "${expectation}", then 417 41701 and no 100 Continue`, async () => {
      const client = await exchange(
        `POST /plants HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Type: application/json\r\n` +
          `Content-Length: 2\r\nExpect: ${expectation}\r\n\r\n`,
      );

      expect(client.text).to.match(/^HTTP\/1\.1 417 /);
      expect(client.response().body).to.deep.include({ error: 41701 });
      await closedByServer();
    });
  }

  for (const expectation of ['100-continue', '100-Continue', ' 100-CONTINUE ']) {
    it(`when Expect is "${expectation}" (the expectation is case-insensitive), then 100 Continue and the request is served`, async () => {
      const client = await RawClient.open(service.port);
      clients.push(client);
      client.send(
        `POST /plants HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Type: application/json\r\n` +
          `Content-Length: 20\r\nConnection: close\r\nExpect: ${expectation}\r\n\r\n`,
      );
      await eventually(() => client.text.startsWith('HTTP/1.1 100 Continue\r\n\r\n'), 1000, '100');
      client.send('{"id":1,"name":"ab"}');
      await client.ended;

      expect(client.text.slice(client.text.indexOf('\r\n\r\n') + 4)).to.match(/^HTTP\/1\.1 200 /);
    });
  }

  it('when a request has two Host headers, then 400 40006 with an Error body, and the connection closes', async () => {
    for (const hosts of ['Host: x\r\nHost: y\r\n', 'Host: x\r\nhost: x\r\n']) {
      const client = await exchange(`GET /plants HTTP/1.1\r\n${hosts}${AUTH}\r\n`);

      expect(client.response()).to.deep.include({
        status: 400,
        body: { error: 40006, message: 'a request must carry exactly one Host header' },
      });
    }
    await closedByServer();
  });

  it('when an HTTP/1.1 request has no Host, then 400 40006 with an Error body, and the connection closes', async () => {
    const client = await exchange(`GET /plants HTTP/1.1\r\n${AUTH}\r\n`);

    expect(client.response()).to.deep.include({
      status: 400,
      body: { error: 40006, message: 'an HTTP/1.1 request must carry a Host header' },
    });
    await closedByServer();
  });

  it('when an HTTP/1.0 request has no Host, then it is served', async () => {
    const client = await exchange('GET /healthz HTTP/1.0\r\n\r\n');

    expect(client.text).to.match(/^HTTP\/1\.1 200 OK\r\n/);
    expect(client.text).to.match(/\{"status":"ok"\}$/);
  });

  it('when the method is CONNECT, then 405 40502 with an Error body and Allow, and the connection closes', async () => {
    const client = await exchange(
      'CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n',
    );

    expect(client.response()).to.deep.include({
      status: 405,
      body: { error: 40502, message: 'CONNECT is not supported: this server is not a proxy' },
    });
    expect(client.response().headers).to.include('\r\nAllow: GET, HEAD, POST, DELETE');
    await closedByServer();
  });

  it('when a list is asked for with an absolute-form target, then its Link is path-absolute, without the scheme or host', async () => {
    await service.store.insert(service.tenant, { id: 1n, name: 'a' });
    await service.store.insert(service.tenant, { id: 2n, name: 'b' });

    const client = await exchange(
      `GET http://evil.example/plants?limit=1 HTTP/1.1\r\nHost: x\r\n${AUTH}Connection: close\r\n\r\n`,
    );

    expect(client.response().status).to.equal(200);
    const link = /\r\nLink: ([^\r]*)/i.exec(client.response().headers)?.[1];
    expect(link).to.match(/^<\/plants\?limit=1&cursor=[A-Za-z0-9_-]+>; rel="next"$/);
  });
});
