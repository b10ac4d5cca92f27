import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { expect } from 'chai';
import { WebhookSender } from '../../../../src/adapters/webhooks/webhook-sender.js';

describe('WebhookSender (src/adapters/webhooks/webhook-sender.ts), against a real receiver', () => {
  let server: Server;
  let url: string;
  let answer: string;
  const sender = new WebhookSender({ timeoutMs: 5000, allowPrivate: true });

  before(async () => {
    server = createServer((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(answer);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
  });
  after(() => {
    sender.close();
    server.close();
  });

  const send = () =>
    sender.send(url, `whsec_${Buffer.alloc(24, 7).toString('base64')}`, {
      eventId: 'evt_1',
      body: '{}',
    });

  it('when a failing receiver answers control and bidirectional characters, then its excerpt holds them escaped, line breaks as spaces', async () => {
    answer = '\u001b]0;PWNED\u0007\u001b[2J\r\nfake \u202Eexe.txt\u0085 \u009b1m';

    expect(await send()).to.deep.equal({
      ok: false,
      error: 'HTTP 500: \\u001B]0;PWNED\\u0007\\u001B[2J fake \\u202Eexe.txt\\u0085 \\u009B1m',
    });
  });

  it('when a failing receiver answers plain text over several lines, then the excerpt is one line of it', async () => {
    answer = '  receiver failing\n\ton purpose  ';

    expect(await send()).to.deep.equal({
      ok: false,
      error: 'HTTP 500: receiver failing on purpose',
    });
  });
});
