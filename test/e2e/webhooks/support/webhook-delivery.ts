import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import type { StorageOptions } from '../../../../src/config/index.js';
import { WebhookReceiver } from '../../../support/webhook-receiver.js';
import { Api, FAST_WEBHOOKS } from '../../../support/http-harness.js';

/** The delivery behaviour every storage must show; `storage` is resolved once its server runs. */
export function webhookDeliverySuite(storage: () => StorageOptions): void {
  let api: Api;
  let receiver: WebhookReceiver;

  beforeEach(async () => {
    api = await Api.start(storage(), {}, { webhooks: {} });
    receiver = await WebhookReceiver.start();
  });
  afterEach(async () => {
    await api?.close();
    await receiver?.close();
  });

  const subscribe = async () => {
    const subscription = await api.service.webhookAdministration.add({
      tenant: api.tenant,
      url: receiver.url,
    });
    receiver.secrets.push(subscription.secret);
    return subscription;
  };

  it('when plants are created, then each NewPlant arrives exactly and verifiably signed', async () => {
    await subscribe();
    const plants: [bigint, string, string?][] = [
      [-(2n ** 63n), 'lowest'],
      [2n ** 63n - 1n, 'highest', ''],
      [2n ** 53n + 1n, 'Ficus "lyrata" \u00e9\u{1F33F}', 'tree'],
    ];
    for (const [id, name, tag] of plants) {
      expect((await api.create(id, name, tag)).status).to.equal(200);
    }
    await receiver.until((received) => received.length >= 3);

    const bodies = receiver.received.map((delivery) => delivery.body).sort();
    expect(bodies).to.deep.equal(
      [
        '{"id":-9223372036854775808,"name":"lowest"}',
        '{"id":9223372036854775807,"name":"highest","tag":""}',
        '{"id":9007199254740993,"name":"Ficus \\"lyrata\\" \u00e9\u{1F33F}","tag":"tree"}',
      ].sort(),
    );
    expect(receiver.received.every((delivery) => delivery.secret === 0)).to.equal(true);
    expect(new Set(receiver.received.map((delivery) => delivery.id)).size).to.equal(3);
    await eventually(async () => (await api.outbox!.size(api.tenant)) === 0);
  });

  it('when the receiver refuses, fails with 500 and hangs past the timeout, then it gets the event once up, with the same webhook-id', async () => {
    await subscribe();
    await receiver.shut();
    expect((await api.create(7n, 'patient')).status).to.equal(200);
    await sleep(150); // refused connections
    await receiver.reopen();
    receiver.mode = 'fail';
    await until(() => receiver.refused >= 1);
    receiver.mode = 'hang';
    await until(() => receiver.refused >= 2);
    await sleep(600); // past the 500 ms timeout
    receiver.mode = 'ok';
    await receiver.until((received) => received.length >= 1, 15_000);

    expect(receiver.received[0]!.body).to.equal('{"id":7,"name":"patient"}');
    expect(receiver.received[0]!.secret).to.equal(0);
    expect(receiver.ids.length).to.be.at.least(3);
    expect(new Set(receiver.ids).size, 'one webhook-id for every attempt').to.equal(1);
    await eventually(async () => (await api.outbox!.size(api.tenant)) === 0);
    await eventually(async () => {
      const [subscription] = await api.subscriptions!.list(api.tenant);
      return (
        subscription!.health.failures === 0 && subscription!.health.lastSuccessAt !== undefined
      );
    });
  });

  it('when the receiver keeps failing, then the last error and failures show, and the webhook-id never changes', async () => {
    await subscribe();
    receiver.mode = 'fail';
    expect((await api.create(8n, 'failing')).status).to.equal(200);
    await until(() => receiver.refused >= 3);
    // An attempt's failure is recorded after its answer arrives: wait for the records to catch up.
    await eventually(
      async () => (await api.subscriptions!.list(api.tenant))[0]!.health.failures >= 2,
    );
    const [subscription] = await api.subscriptions!.list(api.tenant);
    expect(subscription!.health.failures).to.be.at.least(2);
    expect(subscription!.health.lastError).to.match(/^HTTP 500: receiver failing on purpose/);
    expect(subscription!.health.lastError!.length).to.be.below(200);
    receiver.mode = 'ok';
    await receiver.until((received) => received.length >= 1, 15_000);
    expect(receiver.received.map((delivery) => delivery.body)).to.deep.equal([
      '{"id":8,"name":"failing"}',
    ]);
    expect(new Set(receiver.ids).size, 'one webhook-id for every attempt').to.equal(1);
  });

  it('when the secret is rotated, then later deliveries are signed with the new secret only', async () => {
    const subscription = await subscribe();
    expect((await api.create(1n, 'before')).status).to.equal(200);
    await receiver.until((received) => received.length >= 1);
    const rotated = await api.service.webhookAdministration.rotateSecret(subscription.id);
    receiver.secrets = [rotated!.secret];
    await sleep(100); // past the subscription cache
    expect((await api.create(2n, 'after')).status).to.equal(200);
    await receiver.until((received) => received.length >= 2);

    expect(receiver.received[1]!.body).to.equal('{"id":2,"name":"after"}');
    expect(receiver.received[1]!.secret, JSON.stringify(receiver.received)).to.equal(0);
    expect(rotated!.secret).to.not.equal(subscription.secret);
  });

  it('when the subscription is removed, then pending and later events are not delivered', async () => {
    const subscription = await subscribe();
    receiver.mode = 'fail';
    expect((await api.create(1n, 'pending')).status).to.equal(200);
    await until(() => receiver.refused >= 1);
    expect(await api.service.webhookAdministration.remove(subscription.id)).to.equal(true);
    // An attempt already under way when the removal landed may still reach the receiver (the
    // removal takes effect within the subscription cache): such late attempts still fail here.
    await sleep(FAST_WEBHOOKS.cacheMs! + FAST_WEBHOOKS.timeoutMs! + 100);
    receiver.mode = 'ok';
    expect((await api.create(2n, 'later')).status).to.equal(200);
    await sleep(600);

    expect(receiver.received).to.deep.equal([]);
    expect(await api.outbox!.size(api.tenant)).to.equal(0);
  });

  it('when a tenant has no subscription, then creating records nothing', async () => {
    expect((await api.create(1n, 'quiet')).status).to.equal(200);
    expect(await api.outbox!.size(api.tenant)).to.equal(0);
  });
}

async function eventually(condition: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met after ${ms} ms`);
    await sleep(20);
  }
}

async function until(condition: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met after ${ms} ms`);
    await sleep(20);
  }
}
