import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { toSummary, type ManagedToken } from '../../../src/domain/managed-token.js';
import type { TokenStore } from '../../../src/ports/token-store.js';

/** How a suite gets a token store (an opened Storage fits; the harness may skip via serverMissing). */
export interface TokenStoreHarness {
  open(): Promise<{ tokens: TokenStore; close(): Promise<void> }>;
}

const at = (iso: string) => new Date(iso);

/** The token store port's contract; every TokenStore adapter runs it unchanged. */
export function describeTokenStoreContract(name: string, harness: TokenStoreHarness): void {
  describe(`TokenStore contract: ${name}`, () => {
    let store: TokenStore;
    let close: (() => Promise<void>) | undefined;
    // Each test uses a tenant and ids of its own, so tests need no cleanup.
    let tenant: string;
    const token = (overrides: Partial<ManagedToken> = {}): ManagedToken => ({
      id: randomBytes(8).toString('hex'),
      name: 'a token',
      tenant,
      scopes: ['plants:read'],
      digest: randomBytes(32).toString('base64url'),
      createdAt: at('2026-01-01T00:00:00.000Z'),
      ...overrides,
    });

    before(async () => {
      ({ tokens: store, close } = await harness.open());
    });
    after(async () => {
      await close?.();
    });
    beforeEach(() => {
      tenant = `t-${randomUUID()}`;
    });

    it('when a token is created, then find resolves it whole', async () => {
      const created = token({
        scopes: ['plants:read', 'plants:write'],
        expiresAt: at('2026-02-01T00:00:00.000Z'),
      });

      expect(await store.create(created)).to.equal(true);

      expect(await store.find(created.id)).to.deep.equal(created);
    });

    it('when an id is taken, then create resolves false and keeps the first token', async () => {
      const first = token();
      await store.create(first);

      expect(await store.create({ ...first, tenant: 'intruder', digest: 'other' })).to.equal(false);
      expect(await store.find(first.id)).to.deep.equal(first);
    });

    it('when no token has the id, then find resolves undefined and revoke false', async () => {
      const id = randomBytes(8).toString('hex');

      expect(await store.find(id)).to.equal(undefined);
      expect(await store.revoke(id, new Date())).to.equal(false);
    });

    it('when listing a tenant, then its tokens come oldest first, without digests', async () => {
      const newer = token({ name: 'newer', createdAt: at('2026-01-02T00:00:00.000Z') });
      const older = token({ name: 'older', createdAt: at('2026-01-01T00:00:00.000Z') });
      await store.create(newer);
      await store.create(older);
      await store.create(token({ tenant: `${tenant}-other` }));

      const listed = await store.list(tenant);

      expect(listed.map((t) => t.name)).to.deep.equal(['older', 'newer']);
      for (const summary of listed) expect(summary).to.not.have.property('digest');
      expect(listed[0]).to.deep.equal(toSummary(older));
    });

    it('when listing without a tenant, then every tenant is included', async () => {
      const mine = token();
      const theirs = token({ tenant: `${tenant}-other` });
      await store.create(mine);
      await store.create(theirs);

      const ids = (await store.list()).map((t) => t.id);

      expect(ids).to.include.members([mine.id, theirs.id]);
    });

    it('when a token is revoked twice, then both resolve true and the first time stays', async () => {
      const created = token();
      await store.create(created);

      expect(await store.revoke(created.id, at('2026-03-01T00:00:00.000Z'))).to.equal(true);
      expect(await store.revoke(created.id, at('2026-04-01T00:00:00.000Z'))).to.equal(true);

      expect((await store.find(created.id))?.revokedAt).to.deep.equal(
        at('2026-03-01T00:00:00.000Z'),
      );
      expect((await store.list(tenant))[0]?.revokedAt).to.deep.equal(
        at('2026-03-01T00:00:00.000Z'),
      );
    });

    it('when uses are marked out of order, then the latest is kept and listed', async () => {
      const created = token();
      await store.create(created);

      await store.markUsed(created.id, at('2026-05-02T00:00:00.000Z'));
      await store.markUsed(created.id, at('2026-05-01T00:00:00.000Z'));

      expect((await store.find(created.id))?.lastUsedAt).to.deep.equal(
        at('2026-05-02T00:00:00.000Z'),
      );
      expect((await store.list(tenant))[0]?.lastUsedAt).to.deep.equal(
        at('2026-05-02T00:00:00.000Z'),
      );
    });

    it('when a use is marked for an unknown id, then it resolves and creates nothing', async () => {
      const id = randomBytes(8).toString('hex');

      await store.markUsed(id, new Date());

      expect(await store.find(id)).to.equal(undefined);
    });

    it('when the caller changes a token after create or find, then the store does not change', async () => {
      const created = token({ scopes: ['plants:read'] });
      await store.create(created);
      (created.scopes as string[]).push('plants:write');
      const found = await store.find(created.id);
      (found!.scopes as string[]).push('plants:write');

      expect((await store.find(created.id))?.scopes).to.deep.equal(['plants:read']);
    });

    it('when 20 creates of one id race, then exactly one wins', async () => {
      const id = randomBytes(8).toString('hex');

      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => store.create(token({ id, name: `racer ${i}` }))),
      );

      expect(results.filter(Boolean)).to.have.length(1);
      expect((await store.find(id))?.name).to.equal(`racer ${results.indexOf(true)}`);
    });
  });
}
