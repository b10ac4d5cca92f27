import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { clientKey } from '../../../src/adapters/http/client-key.js';
import { MemoryTokenStore } from '../../../src/adapters/storage/memory/memory-token-store.js';
import { TYPES } from '../../../src/composition/identifiers.js';
import { Api, ROLE_TOKENS } from '../../support/http-harness.js';
import { RawClient } from '../../support/raw-client.js';

const madeUpToken = () =>
  `pst_${randomBytes(8).toString('hex')}_${randomBytes(32).toString('base64url')}`;

/** One request (head lines, then body) on a fresh connection from `from`. */
async function request(
  port: number,
  [head, body]: [string, string],
  from = '127.0.0.1',
): Promise<ReturnType<RawClient['response']>> {
  const client = await RawClient.open(port, { localAddress: from });
  client.send(`${head}Host: x\r\nConnection: close\r\n\r\n${body}`);
  await client.ended;
  client.destroy();
  return client.response();
}
const list = (token: string): [string, string] => [
  `GET /plants HTTP/1.1\r\nAuthorization: Bearer ${token}\r\n`,
  '',
];
const create = (token: string, id: number): [string, string] => {
  const body = `{"id":${id},"name":"p"}`;
  return [
    `POST /plants HTTP/1.1\r\nAuthorization: Bearer ${token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n`,
    body,
  ];
};

describe('unauthenticated and unauthorised floods', () => {
  let service: Api;
  let lookups = 0;
  afterEach(() => service.close());

  async function start(authFailureLimit: number, rateLimit = 0): Promise<void> {
    const tokenStore = new MemoryTokenStore();
    const find = tokenStore.find.bind(tokenStore);
    lookups = 0;
    tokenStore.find = (id) => (lookups++, find(id));
    // The configured chain (static tokens, managed tokens on this store), as serve builds it.
    service = await Api.start(
      undefined,
      {
        staticTokens: [
          { token: ROLE_TOKENS.both, tenant: 't', scopes: ['plants:read', 'plants:write'] },
          { token: ROLE_TOKENS.read, tenant: 't', scopes: ['plants:read'] },
        ],
        authFailureLimit,
        rateLimit,
      },
      {
        roles: false,
        configure: (container) => container.rebind(TYPES.TokenStore).toConstantValue(tokenStore),
      },
    );
  }

  it('when one address sends made-up pst_ tokens past its budget, then 429 42902 with Retry-After, and no further store lookups', async () => {
    await start(5);

    // One window of the budget (1 s) must hold the sequence: one that a loaded machine made
    // longer proves nothing, so it is sent again from another address (at most three times).
    let statuses: number[] = [];
    let refused: ReturnType<RawClient['response']> | undefined;
    for (const from of ['127.0.0.1', '127.0.0.4', '127.0.0.5']) {
      const started = Date.now();
      lookups = 0;
      statuses = [];
      for (let i = 0; i < 12; i++) {
        statuses.push((await request(service.port, list(madeUpToken()), from)).status);
      }
      refused = await request(service.port, list(madeUpToken()), from);
      if (Date.now() - started < 1000) break;
    }

    expect(statuses.slice(0, 5)).to.deep.equal([401, 401, 401, 401, 401]);
    expect(statuses.slice(5)).to.deep.equal(Array(7).fill(429));
    expect(refused!.body).to.deep.include({ error: 42902 });
    expect(refused!.headers).to.match(/\r\nRetry-After: [1-9]\d*\r\n/);
    expect(lookups).to.equal(5);
  });

  it('when one address is over its budget, then valid callers from another address are served, and valid requests never spend a budget', async () => {
    await start(3);
    for (let i = 0; i < 5; i++) await request(service.port, list('no-such-token-0123456789'));

    const elsewhere = await request(service.port, list(ROLE_TOKENS.both), '127.0.0.2');
    const valid = [];
    for (let i = 0; i < 10; i++) {
      valid.push((await request(service.port, list(ROLE_TOKENS.both), '127.0.0.3')).status);
    }

    expect(elsewhere.status).to.equal(200);
    expect(valid).to.deep.equal(Array(10).fill(200));
  });

  it('when the same made-up pst_ token comes again and again, then the store is asked once (negative cache)', async () => {
    await start(0);
    const token = madeUpToken();

    for (let i = 0; i < 20; i++) {
      expect((await request(service.port, list(token))).status).to.equal(401);
    }

    expect(lookups).to.equal(1);
  });

  it("when a read-only token's writes are refused 403, then they do not use up the tenant's rate limit", async () => {
    await start(0, 3);

    for (let i = 0; i < 10; i++) {
      expect((await request(service.port, create(ROLE_TOKENS.read, i))).status).to.equal(403);
    }
    const write = await request(service.port, create(ROLE_TOKENS.both, 1));

    expect(write.status).to.equal(200);
  });

  it('when addresses are keyed, then IPv4 (also mapped) stands alone and IPv6 counts by its /64', () => {
    expect(clientKey('192.0.2.7')).to.equal('192.0.2.7');
    expect(clientKey('::ffff:192.0.2.7')).to.equal('192.0.2.7');
    expect(clientKey('2001:db8:1:2:aaaa::1')).to.equal('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:2:bbbb:cccc:dddd:eeee')).to.equal('2001:db8:1:2::/64');
    expect(clientKey('2001:db8::1')).to.equal('2001:db8:0:0::/64');
    expect(clientKey('::1')).to.equal('0:0:0:0::/64');
  });
});
