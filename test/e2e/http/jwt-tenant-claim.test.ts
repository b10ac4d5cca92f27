import { expect } from 'chai';
import type { StorageOptions } from '../../../src/config/index.js';
import { BAD_TENANTS } from '../../support/bad-tenants.js';
import { send } from '../../support/http-client.js';
import { Api, expectError } from '../../support/http-harness.js';
import { IdentityProvider } from '../../support/identity-provider.js';
import { startRedisServer } from '../../support/redis-server.js';
import { serverMissing } from '../../support/server-requirement.js';
import { jwtConfigFor } from '../../support/token-kinds.js';

/** The service with the verifiers as configured in production, accepting JWTs of `provider`. */
const startService = (storage: StorageOptions, provider: IdentityProvider) =>
  Api.start(storage, { jwt: jwtConfigFor(provider) }, { roles: false });

for (const kind of ['memory', 'redis'] as const) {
  describe(`JWT tenant claims on ${kind}: one tenant rule for every token`, () => {
    let provider: IdentityProvider;
    let service: Api | undefined;
    let closeRedis: (() => Promise<void>) | undefined;

    before(async function () {
      provider = await IdentityProvider.start();
      let storage: StorageOptions = { kind: 'memory' };
      if (kind === 'redis') {
        const redis = await startRedisServer();
        if (typeof redis === 'string') return serverMissing(this, 'Redis', redis);
        closeRedis = redis.close;
        storage = { kind: 'redis', url: redis.url };
      }
      service = await startService(storage, provider);
    });
    after(async () => {
      await service?.close();
      await closeRedis?.();
      await provider?.close();
    });

    const call = async (tenant: unknown, method: 'GET' | 'POST') => {
      const token = await provider.sign({ tenant, scope: 'plants:read plants:write' });
      const headers: [string, string][] = [['Authorization', `Bearer ${token}`]];
      if (method === 'GET') return send(service!.port, 'GET', '/plants', { headers });
      headers.push(['Content-Type', 'application/json']);
      return send(service!.port, 'POST', '/plants', { headers, body: '{"id":1,"name":"x"}' });
    };

    it('when the tenant claim is well formed, then the caller acts in it', async () => {
      expect((await call('x', 'POST')).status).to.equal(200);
      expect((await call('x', 'GET')).text).to.equal('[{"name":"x"}]');
    });

    for (const [what, tenant] of BAD_TENANTS) {
      it(`when the tenant claim has ${what}, then 401 40102 for reads and writes`, async () => {
        expectError(await call(tenant, 'POST'), 401, 40102);
        expectError(await call(tenant, 'GET'), 401, 40102);
      });
    }

    it('when the claim is x plus a lone surrogate, then it never reaches the plants of x', async () => {
      expectError(await call('x\ud800', 'GET'), 401, 40102);
      expectError(await call('x\ufffd\ud800', 'GET'), 401, 40102);
    });
  });
}
