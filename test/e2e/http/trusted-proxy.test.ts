import { expect } from 'chai';
import type { TrustProxy } from '../../../src/adapters/http/trusted-proxy.js';
import { Api } from '../../support/http-harness.js';
import { eventually, RawClient, sleep } from '../../support/raw-client.js';
import { startService } from '../../support/service-process.js';

/** The proxy's own address, and an address that connects directly. */
const PROXY = '127.0.0.2';
const DIRECT = '127.0.0.3';
const BUDGET = 3;

describe('client addresses behind a trusted proxy (raw sockets)', () => {
  let service: Api | undefined;
  const clients: RawClient[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) client.destroy();
    await service?.close();
    service = undefined;
  });
  const start = async (trustProxy?: TrustProxy, limits = {}) =>
    (service = await Api.start(undefined, {
      http: limits,
      authFailureLimit: BUDGET,
      ...(trustProxy && { trustProxy }),
    }));

  /** A request with a made-up token from `from`, forwarded for `forwardedFor`: its status. */
  async function failAuth(from: string, forwardedFor?: string): Promise<number> {
    const client = await RawClient.open(service!.port, { localAddress: from });
    clients.push(client);
    const header = forwardedFor === undefined ? '' : `X-Forwarded-For: ${forwardedFor}\r\n`;
    client.send(
      `GET /plants HTTP/1.1\r\nHost: x\r\n${header}Authorization: Bearer made-up-token-0123\r\n` +
        'Connection: close\r\n\r\n',
    );
    await client.ended;
    return client.response().status;
  }
  const statuses = async (count: number, from: string, forwardedFor?: string) => {
    const seen: number[] = [];
    for (let i = 0; i < count; i++) seen.push(await failAuth(from, forwardedFor));
    return seen;
  };
  /**
   * One failure from `from` per X-Forwarded-For value, all at once (one after another on a loaded
   * machine, they could outlast the budget's 1 s window): their statuses, sorted.
   */
  const atOnce = async (from: string, forwardedFor: (string | undefined)[]) =>
    (await Promise.all(forwardedFor.map((header) => failAuth(from, header)))).sort();

  it('when no proxy is trusted (the default), then X-Forwarded-For changes nothing: one peer is one address', async () => {
    await start();

    const seen = await atOnce(
      PROXY,
      Array.from({ length: BUDGET + 1 }, (_, i) => `10.0.0.${i + 1}`),
    );

    expect(seen).to.deep.equal([401, 401, 401, 429]);
  });

  it('when one hop is trusted, then each client behind the proxy has its own failure budget, whatever it puts in front of the header', async () => {
    await start({ hops: 1 });

    // The same client: only the entry the proxy appended counts.
    const spoofed = [...Array<string>(BUDGET).fill('spoofed, 10.0.0.1'), 'other-spoof, 10.0.0.1'];
    expect(await atOnce(PROXY, spoofed)).to.deep.equal([401, 401, 401, 429]);
    expect(await failAuth(PROXY, '10.0.0.2')).to.equal(401);
    // No header: the peer itself.
    expect(await statuses(BUDGET, PROXY)).to.deep.equal([401, 401, 401]);
  });

  it('when proxies are named by address, then only their X-Forwarded-For is read, walked past every trusted entry', async () => {
    await start({ addresses: [PROXY, '192.168.0.0/16'] });

    // Through the proxy and an inner trusted hop: the client is the first untrusted entry.
    const inner = [...Array<string>(BUDGET).fill('10.0.0.1, 192.168.5.5'), '10.0.0.1'];
    expect(await atOnce(PROXY, inner)).to.deep.equal([401, 401, 401, 429]);
    expect(await failAuth(PROXY, '10.0.0.2, 192.168.5.5')).to.equal(401);
    // A peer that is no proxy cannot name another client.
    const named = Array.from({ length: BUDGET + 1 }, (_, i) => `10.0.1.${i}`);
    expect(await atOnce(DIRECT, named)).to.deep.equal([401, 401, 401, 429]);
  });

  it('when proxies are named by address, then their connections are exempt from the per-address bound and others are not', async () => {
    await start({ addresses: [PROXY] }, { maxConnections: 100, maxConnectionsPerAddress: 3 });
    for (const from of [PROXY, DIRECT]) {
      for (let i = 0; i < 6; i++) {
        const client = await RawClient.open(service!.port, { localAddress: from });
        clients.push(client);
        client.send('GET /plants HTTP/1.1\r\nHost: x\r\n');
      }
    }
    const openOn = (address: string) =>
      service!.sockets.filter((s) => !s.destroyed && s.remoteAddress === address).length;
    await eventually(() => openOn(DIRECT) === 3, 1000, 'direct bounded');
    await sleep(100);

    expect(openOn(PROXY)).to.equal(6);
    expect(openOn(DIRECT)).to.equal(3);
  });

  it('when the service process is started with PLANT_STORE_TRUST_PROXY=1, then the failure budget and the access line ip are per forwarded client', async () => {
    const running = await startService({
      PLANT_STORE_TRUST_PROXY: '1',
      PLANT_STORE_AUTH_FAILURE_LIMIT: '2',
      LOG_LEVEL: 'info',
    });
    try {
      const ask = async (forwardedFor: string) => {
        const client = await RawClient.open(running.port, { localAddress: PROXY });
        clients.push(client);
        client.send(
          `GET /plants HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: ${forwardedFor}\r\n` +
            'Authorization: Bearer made-up-token-0123\r\nConnection: close\r\n\r\n',
        );
        await client.ended;
        return client.response().status;
      };

      // All at once, so that one window of the budget (1 s) holds them on a loaded machine.
      const first = await Promise.all([ask('10.0.0.1'), ask('10.0.0.1'), ask('10.0.0.1')]);
      expect(first.sort()).to.deep.equal([401, 401, 429]);
      expect(await ask('10.0.0.2')).to.equal(401);
      // The access line names the forwarded client too: its stdout is a pipe of its own, read
      // after the answers, so wait for the four lines.
      await running.waitFor(/(?:"msg":"request"[^\n]*\n[\s\S]*?){4}/);
      const ips = running
        .stdout()
        .split('\n')
        .filter((line) => line.includes('"msg":"request"'))
        .map((line) => (JSON.parse(line) as { ip?: string }).ip);
      expect(ips).to.deep.equal(['10.0.0.1', '10.0.0.1', '10.0.0.1', '10.0.0.2']);
    } finally {
      await running.stop();
    }
  });
});
