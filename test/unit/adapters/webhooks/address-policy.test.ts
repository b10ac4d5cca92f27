import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../../../src/config/index.js';
import {
  checkReceiverUrl,
  isPrivateAddress,
} from '../../../../src/adapters/webhooks/address-policy.js';
import { loadWebhookConfig } from '../../../../src/config/webhooks.js';
import {
  publicOnlyLookup,
  WebhookSender,
} from '../../../../src/adapters/webhooks/webhook-sender.js';
import { newEventId, newWebhookSecret } from '../../../../src/application/webhook-ids.js';

describe('the webhook address policy', () => {
  it('when an address is loopback, private, link-local, reserved or mapped, then it counts as private', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      // IPv4-compatible (deprecated): 127.0.0.1, 169.254.169.254, 10.0.0.1, and a public one.
      '::7f00:1',
      '::a9fe:a9fe',
      '::a00:1',
      '::808:808',
      // IPv4-translated, deprecated site-local, documentation.
      '::ffff:0:7f00:1',
      'fec0::1',
      'feff::1',
      '3fff::1',
    ]) {
      expect(isPrivateAddress(address), address).to.equal(true);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8']) {
      expect(isPrivateAddress(address), address).to.equal(false);
    }
  });

  it('when a receiver URL is checked, then only https to a public host passes unless private ones are allowed', () => {
    expect(checkReceiverUrl('https://hooks.example.com/x', false)).to.equal(undefined);
    expect(checkReceiverUrl('http://hooks.example.com/x', false)).to.match(/must use https/);
    expect(checkReceiverUrl('https://127.0.0.1/x', false)).to.match(/loopback, private/);
    expect(checkReceiverUrl('https://[::1]/x', false)).to.match(/loopback, private/);
    expect(checkReceiverUrl('https://localhost/x', false)).to.match(/loopback host/);
    expect(checkReceiverUrl('https://user:pw@hooks.example.com/', false)).to.match(/credentials/);
    expect(checkReceiverUrl('not a url', false)).to.match(/absolute/);
    expect(checkReceiverUrl('http://127.0.0.1:9/x', true)).to.equal(undefined);
    expect(checkReceiverUrl('ftp://127.0.0.1/x', true)).to.match(/https/);
  });

  it('when a receiver URL names an IPv4-compatible, site-local or trailing-dot host, then it is refused', () => {
    for (const url of [
      'https://[::127.0.0.1]/',
      'https://[::a9fe:a9fe]/',
      'https://[::a00:1]/',
      'https://[fec0::1]/',
      'https://[::ffff:0:7f00:1]/',
    ]) {
      expect(checkReceiverUrl(url, false), url).to.match(/loopback, private or reserved/);
    }
    for (const url of ['https://localhost./x', 'https://a.localhost./', 'https://example.com./']) {
      expect(checkReceiverUrl(url, false), url).to.match(/must not end with a dot/);
    }
    // The URL parser drops an IPv4 literal's trailing dot: the address rule applies.
    expect(checkReceiverUrl('https://127.0.0.1./', false)).to.match(/loopback, private/);
    expect(checkReceiverUrl('https://[2606:4700::1111]/x', false)).to.equal(undefined);
  });

  it('when a stored subscription names such a host, then the sender refuses the delivery before connecting', async () => {
    const sender = new WebhookSender({
      timeoutMs: 2000,
      allowPrivate: false,
      // What a name resolves to, per name: the connection's lookup checks these.
      resolve: (host, _options, callback) =>
        callback(null, [
          { address: host === 'metadata.example' ? '::a9fe:a9fe' : 'fec0::1', family: 6 },
        ]),
    });
    const deliver = async (url: string) => {
      const outcome = await sender.send(url, newWebhookSecret(), {
        eventId: newEventId(),
        body: '{"id":1,"name":"a"}',
      });
      return outcome.ok ? 'delivered' : outcome.error;
    };
    try {
      expect(await deliver('https://[::127.0.0.1]:9/hooks')).to.match(
        /loopback, private or reserved/,
      );
      expect(await deliver('https://[fec0::1]:9/hooks')).to.match(/loopback, private or reserved/);
      expect(await deliver('https://localhost./hooks')).to.match(/must not end with a dot/);
      expect(await deliver('https://metadata.example/hooks')).to.match(/non-public address/);
      expect(await deliver('https://site.example/hooks')).to.match(/non-public address/);
    } finally {
      sender.close();
    }
  });

  it('when a host name resolves to any non-public address, then the connection lookup refuses it', async () => {
    const resolving =
      (addresses: string[]): Parameters<typeof publicOnlyLookup>[0] =>
      (_host, _options, callback) =>
        callback(
          null,
          addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
        );
    const lookUp = (addresses: string[]) =>
      new Promise<string>((resolve) =>
        publicOnlyLookup(resolving(addresses))('hooks.example', {}, (error, address) =>
          resolve(error ? error.message : String(address)),
        ),
      );

    expect(await lookUp(['93.184.216.34'])).to.equal('93.184.216.34');
    expect(await lookUp(['93.184.216.34', '127.0.0.1'])).to.equal(
      'hooks.example resolves to a non-public address',
    );
    expect(await lookUp(['fd00::1'])).to.match(/non-public/);
  });

  it('when PLANT_STORE_WEBHOOK_* are set, then they are read; a bad one names itself', () => {
    const config = loadWebhookConfig({
      PLANT_STORE_WEBHOOK_RETRY_SCHEDULE: '250ms,5s,2h',
      PLANT_STORE_WEBHOOK_DISABLE_AFTER: '3d',
      PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true',
      PLANT_STORE_WEBHOOK_DELIVER: 'false',
      PLANT_STORE_WEBHOOK_TENANT_BACKLOG: '500',
    });
    expect(config.deliver).to.equal(false);
    expect(config.tenantBacklog).to.equal(500);
    expect(loadWebhookConfig({}).tenantBacklog).to.equal(10_000);
    expect(loadWebhookConfig({}).deliver).to.equal(true);
    expect(() =>
      loadConfig({ PLANT_STORE_WEBHOOK_DELIVER: 'false', PLANT_STORE_STORAGE: 'memory' }),
    ).to.throw(
      ConfigError,
      /^PLANT_STORE_WEBHOOK_DELIVER=false needs a shared storage \(lmdb, redis or mongodb\)/,
    );
    expect(
      loadConfig({ PLANT_STORE_WEBHOOK_DELIVER: 'false', PLANT_STORE_STORAGE: 'redis' }).webhooks
        ?.deliver,
    ).to.equal(false);
    expect(config.schedule.delaysMs).to.deep.equal([250, 5000, 7_200_000]);
    expect(config.schedule.disableAfterMs).to.equal(3 * 86_400_000);
    expect(config.allowPrivate).to.equal(true);
    expect(() => loadWebhookConfig({ PLANT_STORE_WEBHOOK_TIMEOUT: '5 minutes' })).to.throw(
      ConfigError,
      /^PLANT_STORE_WEBHOOK_TIMEOUT must be a duration/,
    );
  });
});
