import { createPublicKey } from 'node:crypto';
import { expect } from 'chai';
import { base64url, SignJWT } from 'jose';
import { expectError } from '../../support/http-harness.js';
import { IdentityProvider, signingKey } from '../../support/identity-provider.js';
import { TokenKindsApi } from '../../support/token-kinds.js';

const INVALID_TOKEN = 'Bearer realm="plant-store", error="invalid_token"';
const now = () => Math.floor(Date.now() / 1000);
const encode = (value: object) => base64url.encode(JSON.stringify(value));

describe('JWT bearer tokens over HTTP (JWKS served on loopback)', () => {
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

  const list = (token: string) => api.request('GET', '/plants', token);
  const refused = async (token: string) => {
    const response = await list(token);
    expectError(response, 401, 40102);
    expect(response.headers['www-authenticate']).to.equal(INVALID_TOKEN);
  };
  const claims = { tenant: 'jwt-tenant', scope: 'plants:read' };

  it('when the token is valid (RS256 or ES256), then the caller is its tenant', async () => {
    const rsa = await list(await provider.sign(claims));
    const ec = await list(await provider.sign(claims, provider.keys[1]));

    expect([rsa.status, ec.status]).to.deep.equal([200, 200]);
  });

  it('when many requests carry JWTs, then the JWKS is fetched once', async () => {
    const before = provider.fetches;
    for (let i = 0; i < 5; i++) await list(await provider.sign({ ...claims, jti: String(i) }));

    expect(provider.fetches - before).to.be.at.most(1);
  });

  it('when the token expired beyond the clock tolerance, then 401 40102', async () => {
    await refused(await provider.sign({ ...claims, exp: now() - 31, iat: now() - 600 }));
  });

  it('when the token expired within the 30 s clock tolerance, then it is accepted', async () => {
    expect((await list(await provider.sign({ ...claims, exp: now() - 10 }))).status).to.equal(200);
  });

  it('when the token is not yet valid (nbf beyond the tolerance), then 401 40102', async () => {
    await refused(await provider.sign({ ...claims, nbf: now() + 120 }));
  });

  it('when the token has no exp, then 401 40102', async () => {
    await refused(await provider.sign({ ...claims, exp: undefined }));
  });

  it('when the issuer is another, then 401 40102', async () => {
    await refused(await provider.sign({ ...claims, iss: 'https://evil.test/' }));
  });

  it('when the audience is another, then 401 40102', async () => {
    await refused(await provider.sign({ ...claims, aud: 'another-api' }));
  });

  it('when the signature does not match (payload changed after signing), then 401 40102', async () => {
    const [header, , signature] = (await provider.sign(claims)).split('.');
    const forged = encode({
      ...claims,
      iss: provider.issuer,
      aud: provider.audience,
      exp: now() + 300,
      tenant: 'victim',
    });

    await refused(`${header}.${forged}.${signature}`);
  });

  it('when the token is signed by a key with a served kid but another secret, then 401 40102', async () => {
    const impostor = { ...(await signingKey('x', 'RS256')), kid: provider.keys[0]!.kid };

    await refused(await provider.sign(claims, impostor));
  });

  it('when alg is none (unsigned), then 401 40102', async () => {
    const payload = { ...claims, iss: provider.issuer, aud: provider.audience, exp: now() + 300 };

    await refused(`${encode({ alg: 'none', typ: 'JWT' })}.${encode(payload)}.`);
  });

  it('when the token is HS256 signed with the public key as the secret, then 401 40102', async () => {
    const pem = createPublicKey({ key: provider.keys[0]!.publicJwk as never, format: 'jwk' })
      .export({ type: 'spki', format: 'pem' })
      .toString();
    const token = await new SignJWT({ ...claims, iss: provider.issuer, aud: provider.audience })
      .setProtectedHeader({ alg: 'HS256', kid: provider.keys[0]!.kid })
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(pem));

    await refused(token);
  });

  it('when the tenant claim is missing, empty or not a string, then 401 40102', async () => {
    await refused(await provider.sign({ scope: 'plants:read' }));
    await refused(await provider.sign({ scope: 'plants:read', tenant: '' }));
    await refused(await provider.sign({ scope: 'plants:read', tenant: 42 }));
  });

  it('when scopes come as a space-separated scope, then each is honoured and others ignored', async () => {
    const token = await provider.sign({ tenant: 'jwt-scope', scope: 'openid plants:read email' });

    expect((await list(token)).status).to.equal(200);
    expectError(
      await api.request('POST', '/plants', token, { json: '{"id":1,"name":"x"}' }),
      403,
      40301,
    );
  });

  it('when scopes come as scp (array or string), then they are honoured', async () => {
    const array = await provider.sign({ tenant: 'jwt-scp', scp: ['plants:write'] });
    const text = await provider.sign({ tenant: 'jwt-scp', scp: 'plants:read plants:write' });

    expect(
      (await api.request('POST', '/plants', array, { json: '{"id":1,"name":"x"}' })).status,
    ).to.equal(200);
    expectError(await list(array), 403, 40301);
    expect((await list(text)).text).to.equal('[{"name":"x"}]');
  });

  it('when a valid token has no scope at all, then 403 40301', async () => {
    expectError(await list(await provider.sign({ tenant: 'jwt-none' })), 403, 40301);
  });

  it('when a token is malformed JSON inside a JWT shape, then 401 40102', async () => {
    await refused('eyJub3QiOiJqc29uIn0.bm90IGpzb24.c2ln');
  });

  it("when the identity provider's keys cannot be fetched, then 503 50302 with Retry-After, not 401", async () => {
    const unreachable = await IdentityProvider.start();
    const outage = await TokenKindsApi.start(unreachable);
    try {
      const token = await unreachable.sign(claims);
      await unreachable.close();

      const response = await outage.request('GET', '/plants', token);

      expect(expectError(response, 503, 50302).message).to.equal(
        "the token issuer's keys are unavailable",
      );
      expect(response.headers['retry-after']).to.equal('1');
    } finally {
      await outage.close();
    }
  });

  it('when the identity provider refuses its keys, then every JWT request answers 503 50302 and the provider is asked at most once a second, not once a request', async () => {
    const down = await IdentityProvider.start();
    const outage = await TokenKindsApi.start(down);
    try {
      const token = await down.sign(claims);
      down.refusing = true;
      const started = Date.now();

      const answers = [];
      for (let i = 0; i < 20; i++) answers.push(await outage.request('GET', '/plants', token));
      const seconds = Math.floor((Date.now() - started) / 1000);

      for (const response of answers) {
        expectError(response, 503, 50302);
        expect(response.headers['retry-after']).to.equal('1');
      }
      // One fetch, and one more per second the requests took (a loaded machine is slow).
      expect(down.fetches)
        .to.be.at.least(1)
        .and.at.most(1 + seconds);
    } finally {
      await outage.close();
      await down.close();
    }
  });
});
