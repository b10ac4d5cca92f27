import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { WebhookSubscription } from '../../../src/domain/webhook.js';
import type { WebhookSubscriptions } from '../../../src/ports/webhook-subscriptions.js';
import { newSubscription } from '../../support/webhook-subscription.js';

/** How a suite gets a subscription store (the harness may skip via serverMissing). */
export interface WebhookSubscriptionsHarness {
  open(context: Mocha.Context): Promise<WebhookSubscriptions>;
  close?(): Promise<void>;
}

const at = (iso: string) => new Date(iso);

/** The subscription port's contract; every adapter runs it unchanged. */
export function describeWebhookSubscriptionsContract(
  name: string,
  harness: WebhookSubscriptionsHarness,
): void {
  describe(`WebhookSubscriptions contract: ${name}`, function () {
    this.timeout(20_000);
    let store: WebhookSubscriptions;
    // Each test uses a tenant of its own, so tests need no cleanup.
    let tenant: string;
    const subscription = (overrides: Partial<WebhookSubscription> = {}): WebhookSubscription =>
      newSubscription(tenant, overrides);

    before(async function () {
      store = await harness.open(this);
    });
    after(async () => {
      await store?.close();
      await harness.close?.();
    });
    beforeEach(() => {
      tenant = `tenant-${randomUUID()}`;
    });

    it('when a subscription is added, then find and list resolve it whole, secret included', async () => {
      const added = subscription();
      expect(await store.add(added)).to.equal(true);

      expect(await store.find(added.id)).to.deep.equal(added);
      expect(await store.list(tenant)).to.deep.equal([added]);
    });

    it('when an id is taken, then add resolves false and keeps the first', async () => {
      const first = subscription();
      await store.add(first);

      expect(await store.add({ ...first, url: 'https://other.example/' })).to.equal(false);
      expect((await store.find(first.id))?.url).to.equal(first.url);
    });

    it("when listing a tenant, then only its subscriptions come, oldest first; without one, every tenant's", async () => {
      const later = subscription({ createdAt: at('2026-03-01T00:00:00.000Z') });
      const earlier = subscription({ createdAt: at('2026-02-01T00:00:00.000Z') });
      await store.add(later);
      await store.add(earlier);
      const otherTenant = `other-${randomUUID()}`;
      const other = subscription({ tenant: otherTenant });
      await store.add(other);

      expect((await store.list(tenant)).map((s) => s.id)).to.deep.equal([earlier.id, later.id]);
      const all = (await store.list()).map((s) => s.id);
      expect(all).to.include.members([earlier.id, later.id, other.id]);
    });

    it('when patched, then only the named fields change, and disabledAt null clears the time', async () => {
      const added = subscription();
      await store.add(added);
      const disabledAt = at('2026-04-01T00:00:00.000Z');
      await store.update(added.id, { enabled: false, disabledAt });
      await store.update(added.id, { secret: 'whsec_bmV3' });
      const health = {
        failures: 3,
        failingSince: at('2026-04-01T00:00:00.000Z'),
        lastError: 'HTTP 500',
        lastAttemptAt: at('2026-04-02T00:00:00.000Z'),
      };
      const patched = await store.update(added.id, { health });

      const expected = { ...added, enabled: false, disabledAt, secret: 'whsec_bmV3', health };
      expect(patched).to.deep.equal(expected);
      expect(await store.find(added.id)).to.deep.equal(expected);
      const enabled = await store.update(added.id, { enabled: true, disabledAt: null });
      expect(enabled).to.deep.equal({ ...added, secret: 'whsec_bmV3', health });
    });

    it('when the id is unknown, then update resolves undefined and remove false', async () => {
      const absent = subscription();
      expect(await store.update(absent.id, { enabled: false })).to.equal(undefined);
      expect(await store.remove(absent.id)).to.equal(false);
      expect(await store.find(absent.id)).to.equal(undefined);
    });

    it('when removed, then it is neither found nor listed', async () => {
      const added = subscription();
      await store.add(added);

      expect(await store.remove(added.id)).to.equal(true);
      expect(await store.find(added.id)).to.equal(undefined);
      expect(await store.list(tenant)).to.deep.equal([]);
    });
  });
}
