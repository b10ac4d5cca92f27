// Each test pins one behaviour of node:http or node:net that node-internals.ts relies on, on real
// servers and sockets; `npm run test:node-internals` runs them on Node 20, 22 and 24.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo, Socket } from 'node:net';
import { expect } from 'chai';
import {
  closeAfterAnswer,
  onCloseAfterAnswer,
  onCloseIdle,
  responseInProgress,
  serverOf,
  stopParsing,
} from '../../../../../src/adapters/http/server/node-internals.js';
import { eventually, RawClient } from '../../../../support/raw-client.js';

const GET = 'GET / HTTP/1.1\r\nHost: x\r\n\r\n';
const answers = (text: string) => text.match(/HTTP\/1\.1 \d{3}/g)?.length ?? 0;

describe(`node-internals (Node ${process.version})`, () => {
  let server: Server | undefined;
  const clients: RawClient[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) client.destroy();
    server?.closeAllConnections();
    server?.close();
    server = undefined;
  });
  async function serve(listener: (req: IncomingMessage, res: ServerResponse) => void) {
    server = createServer(listener);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return server;
  }
  async function client(): Promise<RawClient> {
    const opened = await RawClient.open((server!.address() as AddressInfo).port);
    clients.push(opened);
    return opened;
  }

  it('when a request is being answered, then responseInProgress gives its response, and undefined once it is answered on a kept-alive connection', async () => {
    let during: ServerResponse | undefined;
    let answered: ServerResponse | undefined;
    let socket: Socket | undefined;
    await serve((req, res) => {
      socket = req.socket;
      during = responseInProgress(req.socket);
      answered = res;
      res.end('ok');
    });
    const raw = await client();

    raw.send(GET);
    await eventually(() => answers(raw.text) === 1, 2000, 'the answer');

    expect(during).to.equal(answered);
    await eventually(() => responseInProgress(socket!) === undefined, 2000, 'between requests');
    expect(socket!.destroyed).to.equal(false);
  });

  it('when closeAfterAnswer is called before answering, then the answer says Connection: close and node:http ends the connection through the replaced destroySoon', async () => {
    let closedThroughHook = false;
    const srv = await serve((_req, res) => {
      closeAfterAnswer(res);
      res.end('ok');
    });
    srv.on('connection', (socket: Socket) =>
      onCloseAfterAnswer(socket, () => {
        closedThroughHook = true;
        socket.end();
      }),
    );
    const raw = await client();

    raw.send(GET);
    await raw.ended;

    expect(raw.text).to.match(/\r\nConnection: close\r\n/i);
    expect(closedThroughHook).to.equal(true);
  });

  it('when server.close() is called, then it calls the replaced closeIdleConnections and leaves an idle connection open', async () => {
    let called = 0;
    const srv = await serve((_req, res) => res.end('ok'));
    onCloseIdle(srv, () => called++);
    const raw = await client();
    raw.send(GET);
    await eventually(() => answers(raw.text) === 1, 2000, 'the answer');

    srv.close();

    expect(called).to.equal(1);
    expect(raw.socket.destroyed).to.equal(false);
  });

  it('when a connection is accepted, then serverOf gives the server that accepted it, which says it stopped listening once closed', async () => {
    let seen: Server | undefined;
    const srv = await serve((req, res) => {
      seen = serverOf(req.socket);
      res.end();
    });
    const raw = await client();
    raw.send(GET);
    await eventually(() => answers(raw.text) === 1, 2000, 'the answer');

    srv.close();

    expect(seen).to.equal(srv);
    expect(seen!.listening).to.equal(false);
  });

  it('when stopParsing is called and another data listener added, then later requests reach that listener and are not parsed', async () => {
    let requests = 0;
    let dropped = '';
    await serve((req, res) => {
      requests++;
      res.end('ok', () => {
        stopParsing(req.socket);
        req.socket.on('data', (chunk: Buffer) => (dropped += chunk.toString('latin1')));
        req.socket.resume();
      });
    });
    const raw = await client();
    raw.send(GET);
    await eventually(() => answers(raw.text) === 1, 2000, 'the first answer');

    raw.send(GET);
    await eventually(() => dropped === GET, 2000, 'the second request read as bytes');

    expect(requests).to.equal(1);
    expect(answers(raw.text)).to.equal(1);
  });
});
