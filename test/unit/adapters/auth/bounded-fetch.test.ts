import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { expect } from 'chai';
import { BodyTooLarge, boundedFetch } from '../../../../src/adapters/auth/bounded-fetch.js';
import { rejection } from '../../../support/rejection.js';

const LIMIT = 1000;

describe('boundedFetch', () => {
  let server: Server;
  let url: string;
  let answer: { status: number; body: string; length?: number };
  let closedEarly: Promise<boolean>;

  before(async () => {
    server = createServer((_req, res) => {
      closedEarly = once(res, 'close').then(() => !res.writableFinished);
      res.statusCode = answer.status;
      if (answer.length !== undefined) res.setHeader('Content-Length', answer.length);
      // A declared length is announced first and the body held back: only the header is read.
      if (answer.length !== undefined) res.flushHeaders();
      else res.end(answer.body);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('when the body is within the bound, then it is answered whole, and onBody hears of it', async () => {
    answer = { status: 200, body: 'x'.repeat(LIMIT) };
    let bodies = 0;

    const response = await boundedFetch(LIMIT, () => bodies++)(url, {});

    expect(await response.text()).to.equal(answer.body);
    expect(bodies).to.equal(1);
  });

  it('when Content-Length says more than the bound, then it is refused and the connection cut before any body', async () => {
    answer = { status: 200, body: '', length: 50_000_000 };

    const error = await rejection(boundedFetch(LIMIT)(url, {}));

    expect(error).to.be.instanceOf(BodyTooLarge);
    expect(await closedEarly).to.equal(true);
  });

  it('when the status is not 200, then it comes back without its body', async () => {
    answer = { status: 404, body: 'not here' };

    const response = await boundedFetch(LIMIT)(url, {});

    expect(response.status).to.equal(404);
    expect(await response.text()).to.equal('');
  });
});
