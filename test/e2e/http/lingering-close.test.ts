import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { Api, ROLE_TOKENS } from '../../support/http-harness.js';
import { RawClient } from '../../support/raw-client.js';

const MIB = 1024 * 1024;

/**
 * A client that sends its whole body before it reads (as simple clients do): it writes `body` for
 * `sendMs` without reading, then reads what arrived. A reset in between loses the answer.
 */
async function sendThenRead(
  port: number,
  head: string,
  chunk: Buffer,
  sendMs: number,
): Promise<{ status: number; json: unknown; error: string | undefined }> {
  const client = await RawClient.nonReading(port);
  const { socket } = client;
  client.send(head);
  const until = Date.now() + sendMs;
  while (Date.now() < until && !socket.destroyed) {
    if (socket.write(chunk)) continue;
    // Until the kernel takes more, or a moment, whichever is first: the loop keeps to its time.
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        socket.off('drain', done);
        resolve();
      };
      const timer = setTimeout(done, 20);
      socket.on('drain', done);
    });
  }
  socket.resume();
  await client.ended;
  client.destroy();
  if (client.text === '') return { status: 0, json: undefined, error: client.error };
  const { status, body } = client.response();
  return { status, json: body, error: client.error };
}

describe('lingering close after an early answer (raw sockets)', () => {
  let service: Api;
  beforeEach(async () => (service = await Api.start()));
  afterEach(() => service.close());

  it('when an unauthenticated client is still sending a 200 MB body when it reads, then it reads the 401', async () => {
    const answer = await sendThenRead(
      service.port,
      'POST /plants HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        `Content-Length: ${200 * MIB}\r\n\r\n`,
      Buffer.alloc(64 * 1024, 0x20),
      300,
    );

    expect(answer).to.deep.include({ status: 401, error: undefined });
    expect(answer.json).to.deep.include({ error: 40101 });
  });

  it('when a client is still sending 40 MiB of gzip members when it reads, then it reads the 413', async () => {
    const members = Buffer.concat(Array.from({ length: 2000 }, () => gzipSync('')));
    const answer = await sendThenRead(
      service.port,
      `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ROLE_TOKENS.both}\r\n` +
        'Content-Type: application/json\r\nContent-Encoding: gzip\r\n' +
        `Content-Length: ${40 * MIB}\r\n\r\n`,
      members,
      300,
    );

    expect(answer).to.deep.include({ status: 413, error: undefined });
    expect(answer.json).to.deep.include({ error: 41301 });
  });
});
