import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Scope } from '../../../src/domain/caller.js';
import { expectError } from '../../support/http-harness.js';
import { IdentityProvider } from '../../support/identity-provider.js';
import { TOKEN_KINDS, TokenKindsApi } from '../../support/token-kinds.js';

const ROLES: Record<'read' | 'write' | 'both', Scope[]> = {
  read: ['plants:read'],
  write: ['plants:write'],
  both: ['plants:read', 'plants:write'],
};

/**
 * Every operation x own tenant / other tenant x read / write / both scopes, through each kind of
 * token. Tenant A holds plant 1 ("A's plant"); the caller acts in A (own) or in B (other).
 */
describe('tenant isolation and scopes, through each kind of token', () => {
  let provider: IdentityProvider;
  let api: TokenKindsApi;

  before(async () => {
    provider = await IdentityProvider.start();
    api = await TokenKindsApi.start(provider);
  });
  after(async () => {
    await api?.close();
    await provider?.close();
  });

  for (const kind of TOKEN_KINDS) {
    for (const [role, scopes] of Object.entries(ROLES)) {
      const reads = scopes.includes('plants:read');
      const writes = scopes.includes('plants:write');

      describe(`a ${kind} token with ${role} scopes`, () => {
        let tenantA: string;
        let tenantB: string;
        let ownerOfA: string;

        beforeEach(async () => {
          tenantA = `a-${randomUUID()}`;
          tenantB = `b-${randomUUID()}`;
          ownerOfA = await api.token(kind, tenantA, ROLES.both);
          const seeded = await api.request('POST', '/plants', ownerOfA, {
            json: `{"id":1,"name":"A's plant"}`,
          });
          expect(seeded.status, seeded.text).to.equal(200);
        });

        const listOfA = async () => (await api.request('GET', '/plants', ownerOfA)).text;

        it(`when it creates in its own tenant, then ${writes ? '200' : '403 40301'}`, async () => {
          const token = await api.token(kind, tenantA, scopes);

          const response = await api.request('POST', '/plants', token, {
            json: '{"id":2,"name":"new"}',
          });

          if (writes) expect(response.status).to.equal(200);
          else expectError(response, 403, 40301);
          expect(await listOfA()).to.equal(
            writes ? `[{"name":"A's plant"},{"name":"new"}]` : `[{"name":"A's plant"}]`,
          );
        });

        it(`when it creates in another tenant with A's id, then ${writes ? '200 without collision' : '403 40301'}`, async () => {
          const token = await api.token(kind, tenantB, scopes);

          const response = await api.request('POST', '/plants', token, {
            json: '{"id":1,"name":"B\'s plant"}',
          });

          if (writes) expect(response.status).to.equal(200);
          else expectError(response, 403, 40301);
          expect(await listOfA()).to.equal(`[{"name":"A's plant"}]`);
        });

        it(`when it lists its own tenant, then ${reads ? "200 with A's plant" : '403 40301'}`, async () => {
          const token = await api.token(kind, tenantA, scopes);

          const response = await api.request('GET', '/plants', token);

          if (reads)
            expect([response.status, response.text]).to.deep.equal([200, `[{"name":"A's plant"}]`]);
          else expectError(response, 403, 40301);
        });

        it(`when it lists another tenant, then ${reads ? 'an empty list' : '403 40301'}`, async () => {
          const token = await api.token(kind, tenantB, scopes);

          const response = await api.request('GET', '/plants', token);

          if (reads) expect([response.status, response.text]).to.deep.equal([200, '[]']);
          else expectError(response, 403, 40301);
        });

        it(`when it deletes in its own tenant, then ${writes ? '204' : '403 40301 and the plant stays'}`, async () => {
          const token = await api.token(kind, tenantA, scopes);

          const response = await api.request('DELETE', '/plants/1', token);

          if (writes) expect([response.status, response.text]).to.deep.equal([204, '']);
          else expectError(response, 403, 40301);
          expect(await listOfA()).to.equal(writes ? '[]' : `[{"name":"A's plant"}]`);
        });

        it(`when it deletes A's plant from another tenant, then ${writes ? '404 40401' : '403 40301'} and the plant stays`, async () => {
          const token = await api.token(kind, tenantB, scopes);

          const response = await api.request('DELETE', '/plants/1', token);

          if (writes) expectError(response, 404, 40401);
          else expectError(response, 403, 40301);
          expect(await listOfA()).to.equal(`[{"name":"A's plant"}]`);
        });
      });
    }
  }
});
