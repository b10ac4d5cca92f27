import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../../src/config/index.js';
import { checkTokenRequest } from '../../../src/domain/managed-token.js';
import { checkTenant } from '../../../src/domain/tenant.js';
import { BAD_TENANTS } from '../../support/bad-tenants.js';

describe('the tenant rule (src/domain/tenant.ts)', () => {
  for (const [what, tenant] of BAD_TENANTS) {
    it(`when a tenant has ${what}, then it is refused`, () => {
      expect(checkTenant(tenant)).to.be.a('string');
    });
  }

  it('when a tenant is not a string, then it is refused', () => {
    for (const tenant of [undefined, null, 7, ['a'], { a: 1 }]) {
      expect(checkTenant(tenant)).to.be.a('string');
    }
  });

  it('when a tenant is 256 characters of any script with inner spaces and emoji, then it is accepted (composed: NFC)', () => {
    for (const tenant of [
      'acme',
      ' a b ',
      'Ünïcödé 植物 🌵',
      '🌵'.repeat(256),
      'עברית',
      'عربي',
      'caf\u00e9',
      '\u00c5',
      '\ud55c\uad6d',
    ]) {
      expect(checkTenant(tenant), tenant).to.equal(undefined);
    }
  });

  it('when a token request names a whitespace-only tenant, then it is refused with a reason', () => {
    expect(checkTokenRequest({ tenant: ' ', scopes: ['plants:read'] })).to.match(/tenant/);
  });

  it('when a token name holds a bidirectional override or is only whitespace, then it is refused', () => {
    for (const name of ['invoice\u202Etxt.exe', '   ', 'a\u2066b', 'a\u0000']) {
      expect(checkTokenRequest({ tenant: 't', scopes: ['plants:read'], name }), name).to.match(
        /name/,
      );
    }
    expect(checkTokenRequest({ tenant: 't', scopes: ['plants:read'], name: 'ci deploy' })).to.equal(
      undefined,
    );
  });

  for (const [what, tenant] of BAD_TENANTS) {
    it(`when a static token's tenant has ${what}, then the configuration is refused naming it`, () => {
      const tokens = JSON.stringify([
        { token: 'a-static-token-1234', tenant, scopes: ['plants:read'] },
      ]);

      expect(() => loadConfig({ PLANT_STORE_TOKENS: tokens }))
        .to.throw(ConfigError)
        .with.property('message')
        .that.matches(/^PLANT_STORE_TOKENS\[0\]\.tenant /);
    });
  }
});
