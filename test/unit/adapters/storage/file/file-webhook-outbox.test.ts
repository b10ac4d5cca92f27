import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { FileWebhookOutbox } from '../../../../../src/adapters/storage/file/file-webhook-outbox.js';
import { newEventId, newWebhookSecret } from '../../../../../src/application/webhook-ids.js';
import {
  signature,
  signingKey,
  WebhookSender,
} from '../../../../../src/adapters/webhooks/webhook-sender.js';
import type { PlantEvent } from '../../../../../src/domain/webhook.js';

const created = (id: bigint): PlantEvent => ({
  type: 'plant.created',
  plant: { id, name: `plant-${id}` },
});

describe('webhook outbox on the memory storage (journal file)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'plant-store-outbox-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const open = (targets: Record<string, string[]>) =>
    FileWebhookOutbox.open(join(dir, 'outbox.jsonl'), async (tenant) => targets[tenant] ?? []);

  it('when events are recorded for two tenants, then size counts each tenant and all', async () => {
    const outbox = await open({ a: ['wh_a'], b: ['wh_b1', 'wh_b2'] });
    for (let i = 1n; i <= 3n; i++) await outbox.record('a', created(i));
    await outbox.record('b', created(9n));
    await outbox.record('c', created(10n)); // no subscription: nothing recorded
    expect(await outbox.size('a')).to.equal(3);
    expect(await outbox.size('b')).to.equal(2);
    expect(await outbox.size('c')).to.equal(0);
    expect(await outbox.size()).to.equal(5);
    await outbox.close();
  });

  it("when a tenant has no room, then a claim takes the others' and leaves its deliveries due", async () => {
    const outbox = await open({ a: ['wh_a'], b: ['wh_b'] });
    for (let i = 1n; i <= 4n; i++) {
      await outbox.record('a', created(i));
      await outbox.record('b', created(100n + i));
    }
    const now = new Date();
    const first = await outbox.claim(now, 10, 60_000, (tenant) => (tenant === 'a' ? 0 : 2));
    expect(first.map((d) => d.tenant)).to.deep.equal(['b', 'b']);
    expect(first.map((d) => d.body)).to.deep.equal([
      '{"id":101,"name":"plant-101"}',
      '{"id":102,"name":"plant-102"}',
    ]);
    const second = await outbox.claim(now, 10, 60_000);
    expect(second.filter((d) => d.tenant === 'a')).to.have.length(4);
    expect(second.filter((d) => d.tenant === 'b').map((d) => d.body)).to.deep.equal([
      '{"id":103,"name":"plant-103"}',
      '{"id":104,"name":"plant-104"}',
    ]);
    expect(await outbox.claim(now, 10, 60_000)).to.deep.equal([]); // all leased
    await outbox.close();
  });

  it('when completions and retries are journaled, then reopening keeps exactly the pending ones', async () => {
    const outbox = await open({ a: ['wh_a'] });
    for (let i = 1n; i <= 5n; i++) await outbox.record('a', created(i));
    const claimed = await outbox.claim(new Date(), 5, 60_000);
    await outbox.complete(claimed[0]!);
    await outbox.complete(claimed[1]!);
    const later = new Date(Date.now() + 3_600_000);
    await outbox.retry(claimed[2]!, later, 3);
    await outbox.close();

    const reopened = await open({ a: ['wh_a'] });
    expect(await reopened.size('a')).to.equal(3);
    // The retried one is not due yet; the two others are (their lease died with the process).
    const due = await reopened.claim(new Date(), 10, 60_000);
    expect(due.map((d) => d.body)).to.deep.equal([
      '{"id":4,"name":"plant-4"}',
      '{"id":5,"name":"plant-5"}',
    ]);
    for (const delivery of due) await reopened.complete(delivery);
    const retried = await reopened.claim(new Date(later.getTime() + 1), 10, 60_000);
    expect(retried.map((d) => [d.body, d.attempts])).to.deep.equal([
      ['{"id":3,"name":"plant-3"}', 3],
    ]);
    await reopened.close();
  });
});

describe('webhook signing', () => {
  it('when a delivery is signed, then the standardwebhooks package verifies it', () => {
    for (let i = 0; i < 20; i++) {
      const secret = newWebhookSecret();
      const eventId = newEventId();
      const seconds = Math.floor(Date.now() / 1000);
      const body = `{"id":${9007199254740993n + BigInt(i)},"name":"Ficus"}`;
      const signed = signature(signingKey(secret)!, eventId, seconds, body);
      expect(signed).to.equal(new Webhook(secret).sign(eventId, new Date(seconds * 1000), body));
      const headers = {
        'webhook-id': eventId,
        'webhook-timestamp': String(seconds),
        'webhook-signature': signed,
      };
      expect(() => new Webhook(secret).verify(body, headers)).not.to.throw();
    }
  });

  it('when private addresses are not allowed, then the sender refuses a host name that resolves to one', async () => {
    const sender = new WebhookSender({
      timeoutMs: 2000,
      allowPrivate: false,
      resolve: (_host, _options, callback) => callback(null, [{ address: '10.0.0.1', family: 4 }]),
    });
    try {
      const outcome = await sender.send('https://receiver.example/hooks', newWebhookSecret(), {
        eventId: newEventId(),
        body: '{"id":1,"name":"a"}',
      });
      expect(outcome).to.deep.include({ ok: false });
      expect((outcome as { error: string }).error).to.match(/non-public address/);
    } finally {
      sender.close();
    }
  });

  it('when a secret is not base64, then there is no key', () => {
    expect(signingKey('whsec_not base64!')).to.equal(undefined);
    expect(signingKey('whsec_abc')).to.equal(undefined);
    expect(signingKey(newWebhookSecret())).not.to.equal(undefined);
  });

  it('when many event ids are drawn, then they are all distinct and well formed', () => {
    const ids = new Set(Array.from({ length: 2000 }, () => newEventId()));
    expect(ids.size).to.equal(2000);
    for (const id of ids) expect(id).to.match(/^msg_[A-Za-z0-9_-]{22}$/);
  });
});
