import { expect } from 'chai';
import { TokenAdministrator } from '../../../src/application/token-administrator.js';
import { MemoryTokenStore } from '../../../src/adapters/storage/memory/memory-token-store.js';
import { TokenRequestError } from '../../../src/domain/managed-token.js';

describe('TokenAdministrator (the token administration port)', () => {
  const createdAt = new Date('2026-06-01T00:00:00.000Z');
  let store: MemoryTokenStore;
  let tokens: TokenAdministrator;

  beforeEach(() => {
    store = new MemoryTokenStore();
    tokens = new TokenAdministrator(store, () => createdAt);
  });

  it('when a token is issued, then its summary is what the listing shows, without a digest', async () => {
    const expiresAt = new Date('2026-07-01T00:00:00.000Z');

    const { token, summary } = await tokens.issue({
      tenant: 'acme',
      scopes: ['plants:read', 'plants:read'],
      name: 'ci',
      expiresAt,
    });

    expect(summary).to.deep.equal({
      id: token.slice(4, 20),
      name: 'ci',
      tenant: 'acme',
      scopes: ['plants:read'],
      createdAt,
      expiresAt,
    });
    expect(await tokens.list('acme')).to.deep.equal([summary]);
    expect((await store.find(summary.id))?.digest)
      .to.be.a('string')
      .and.not.include(token);
  });

  it('when a token is revoked by its id or by its whole text, then it is found and revoked', async () => {
    const first = await tokens.issue({ tenant: 'acme', scopes: ['plants:read'] });
    const second = await tokens.issue({ tenant: 'acme', scopes: ['plants:write'] });

    const byId = await tokens.revoke(first.summary.id);
    const byText = await tokens.revoke(second.token);

    expect([byId, byText]).to.deep.equal([
      { id: first.summary.id, found: true },
      { id: second.summary.id, found: true },
    ]);
    const listed = await tokens.list();
    expect(listed.map((token) => token.revokedAt)).to.deep.equal([createdAt, createdAt]);
  });

  it('when a revocation names no token, then it resolves not found; when it is malformed, it refuses', async () => {
    expect(await tokens.revoke('ffffffffffffffff')).to.deep.equal({
      id: 'ffffffffffffffff',
      found: false,
    });
    const refusal = await tokens.revoke('not-a-token').then(
      () => expect.fail('accepted'),
      (error: unknown) => error,
    );
    expect(refusal).to.be.instanceOf(TokenRequestError);
    expect((refusal as Error).message).to.match(/not a token id/);
  });
});
