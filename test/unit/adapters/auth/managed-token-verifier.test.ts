import { expect } from 'chai';
import { ManagedTokenVerifier } from '../../../../src/adapters/auth/managed-token-verifier.js';
import { TokenAdministrator } from '../../../../src/application/token-administrator.js';
import { MemoryTokenStore } from '../../../../src/adapters/storage/memory/memory-token-store.js';
import { TokenRequestError, type TokenRequest } from '../../../../src/domain/managed-token.js';
import type { TokenStore } from '../../../../src/ports/token-store.js';
import { rejection } from '../../../support/rejection.js';

const TOKEN_CACHE_TTL_MS = 5_000;

/** Issues through the real administration, on this store. */
const issueToken = (store: TokenStore, request: TokenRequest & { expiresAt?: Date }) =>
  new TokenAdministrator(store).issue(request);

/** The memory store, counting lookups and marked uses. */
class CountingStore extends MemoryTokenStore {
  finds = 0;
  marks = 0;
  /** The last use being recorded: the verifier records it in the background. */
  marked: Promise<void> = Promise.resolve();
  override async find(id: string) {
    this.finds++;
    return super.find(id);
  }
  override markUsed(id: string, at: Date) {
    this.marks++;
    this.marked = super.markUsed(id, at);
    return this.marked;
  }
}

describe('ManagedTokenVerifier', () => {
  let store: CountingStore;
  let clock: number;
  let verifier: ManagedTokenVerifier;
  const request = { tenant: 'acme', scopes: ['plants:read'] };

  beforeEach(() => {
    store = new CountingStore();
    clock = Date.parse('2026-06-01T00:00:00Z');
    verifier = new ManagedTokenVerifier(store, {
      ttlMs: TOKEN_CACHE_TTL_MS,
      now: () => clock,
      capacity: 3,
    });
  });

  it('when a token is issued, then it has the pst_ prefix, an id, 256 bits of secret and RFC 6750 characters', async () => {
    const { token, summary: record } = await issueToken(store, request);

    expect(token).to.match(/^pst_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(token.slice(4, 20)).to.equal(record.id);
    expect(Buffer.from(token.slice(21), 'base64url')).to.have.length(32);
    expect(JSON.stringify(await store.find(record.id))).to.not.include(token.slice(21));
  });

  it('when the request names an unknown scope or no tenant, then issuing refuses and stores nothing', async () => {
    for (const bad of [
      { tenant: 'acme', scopes: ['plants:admin'] },
      { tenant: '', scopes: ['plants:read'] },
      { tenant: 'acme', scopes: [] },
      { tenant: 'acme', scopes: ['plants:read'], name: 'bell\u0007' },
    ]) {
      await rejection(issueToken(store, bad), TokenRequestError);
    }
    expect(await store.list()).to.deep.equal([]);
  });

  it('when a valid token is presented, then it resolves the tenant and scopes', async () => {
    const { token } = await issueToken(store, { tenant: 'acme', scopes: ['plants:write'] });

    expect(await verifier.verify(token)).to.deep.equal({
      tenant: 'acme',
      scopes: ['plants:write'],
    });
  });

  it('when a stored token names a tenant that is not NFC (stored before the rule), then it is refused', async () => {
    // A store whose record says `cafe` + U+0301: the issuing door refuses that tenant now.
    const edited = new (class extends MemoryTokenStore {
      override async find(id: string) {
        const record = await super.find(id);
        return record && { ...record, tenant: 'cafe\u0301' };
      }
    })();
    const { token } = await issueToken(edited, { tenant: 'caf\u00e9', scopes: ['plants:read'] });

    const own = new ManagedTokenVerifier(edited, { ttlMs: TOKEN_CACHE_TTL_MS, capacity: 3 });

    expect(await own.verify(token)).to.equal(undefined);
  });

  it('when the secret differs in one character, then it resolves undefined', async () => {
    const { token } = await issueToken(store, request);
    const last = token.at(-1) === 'A' ? 'B' : 'A';

    expect(await verifier.verify(`${token.slice(0, -1)}${last}`)).to.equal(undefined);
  });

  it('when a token is not of the managed shape, then the store is never asked', async () => {
    for (const token of [
      'pst_dev_abcdefghijklmnop',
      'pst_0123456789abcdef_short',
      'x'.repeat(64),
    ]) {
      expect(await verifier.verify(token)).to.equal(undefined);
    }
    expect(store.finds).to.equal(0);
  });

  it('when a token is used many times within the TTL, then the store is asked once', async () => {
    const { token } = await issueToken(store, request);

    await Promise.all(Array.from({ length: 10 }, () => verifier.verify(token)));
    clock += TOKEN_CACHE_TTL_MS - 1;
    await verifier.verify(token);

    expect(store.finds).to.equal(1);
  });

  it(`when a token is revoked, then it still passes until the ${TOKEN_CACHE_TTL_MS} ms TTL ends and never after`, async () => {
    const { token, summary: record } = await issueToken(store, request);
    await verifier.verify(token);

    await store.revoke(record.id, new Date(clock));
    clock += TOKEN_CACHE_TTL_MS - 1;
    const withinBound = await verifier.verify(token);
    clock += 1;
    const afterBound = await verifier.verify(token);

    expect(withinBound).to.not.equal(undefined);
    expect(afterBound).to.equal(undefined);
  });

  it('when a cached token reaches its expiry, then it is refused at once, cache or not', async () => {
    const { token } = await issueToken(store, {
      ...request,
      expiresAt: new Date(clock + 1000),
    });
    expect(await verifier.verify(token)).to.not.equal(undefined);

    clock += 1000;

    expect(await verifier.verify(token)).to.equal(undefined);
  });

  it('when an unknown id is presented again within the TTL, then the store is asked once', async () => {
    const unknown = `pst_0123456789abcdef_${'A'.repeat(43)}`;

    await verifier.verify(unknown);
    await verifier.verify(unknown);

    expect(store.finds).to.equal(1);
  });

  it('when unknown ids flood, then the cache stays at capacity and real tokens stay cached', async () => {
    const { token } = await issueToken(store, request);
    await verifier.verify(token);

    for (let i = 0; i < 50; i++) {
      await verifier.verify(`pst_${i.toString(16).padStart(16, '0')}_${'A'.repeat(43)}`);
    }
    const findsBefore = store.finds;
    await verifier.verify(token);

    expect(store.finds).to.equal(findsBefore);
    const caches = verifier as unknown as Record<string, { size: number }>;
    expect(caches.unknown!.size).to.be.at.most(3);
  });

  it('when a token is used repeatedly, then its use is recorded at most once a minute', async () => {
    const { token, summary: record } = await issueToken(store, request);

    for (let i = 0; i < 5; i++) await verifier.verify(token);
    clock += 60_000;
    await verifier.verify(token);
    await store.marked;

    expect(store.marks).to.equal(2);
    expect((await store.find(record.id))?.lastUsedAt).to.deep.equal(new Date(clock));
  });

  it('when the store is unavailable, then verification rejects and the failure is not cached', async () => {
    const { token } = await issueToken(store, request);
    let down = true;
    const flaky: TokenStore = Object.assign(Object.create(store) as TokenStore, {
      find: async (id: string) => {
        if (down) throw new Error('down');
        return store.find(id);
      },
    });
    const verifying = new ManagedTokenVerifier(flaky, {
      ttlMs: TOKEN_CACHE_TTL_MS,
      now: () => clock,
    });

    const error = await rejection(verifying.verify(token), Error);
    down = false;

    expect(error.message).to.equal('down');
    expect(await verifying.verify(token)).to.deep.equal({
      tenant: 'acme',
      scopes: ['plants:read'],
    });
  });
});
