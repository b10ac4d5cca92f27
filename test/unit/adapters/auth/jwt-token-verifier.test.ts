import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import FakeTimers, { type Clock } from '@sinonjs/fake-timers';
import { expect } from 'chai';
import { exportSPKI, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import {
  BodyTooLarge,
  boundedFetch,
  JWKS_MAX_BYTES,
  JwtTokenVerifier,
} from '../../../../src/adapters/auth/jwt-token-verifier.js';
import { isPlantError } from '../../../../src/domain/errors.js';
import { freePort } from '../../../support/free-port.js';
import { IdentityProvider, signingKey } from '../../../support/identity-provider.js';
import { rejection } from '../../../support/rejection.js';
import { jwtConfigFor } from '../../../support/token-kinds.js';

const MB = 1024 * 1024;

describe('JwtTokenVerifier', () => {
  let provider: IdentityProvider;
  // The cooldown and the retry time are read from Date.now() (jose's and ours): only Date is
  // faked, so that the identity provider's sockets and timers run as usual.
  let clock: Clock;

  beforeEach(async () => {
    provider = await IdentityProvider.start();
    clock = FakeTimers.install({ now: Date.now(), toFake: ['Date'] });
  });
  afterEach(async () => {
    clock.uninstall();
    await provider.close();
  });

  it('when a token names an unknown kid, then it is refused; once the keys rotate to include it, then it is accepted', async () => {
    const verifier = new JwtTokenVerifier(jwtConfigFor(provider), { cooldownMs: 500 });
    const rotated = await signingKey('rsa-2', 'RS256');
    const token = await provider.sign({ tenant: 't', scope: 'plants:read' }, rotated);
    expect(await verifier.verify(await provider.sign({ tenant: 't' }))).to.not.equal(undefined);

    const beforeRotation = await verifier.verify(token);
    provider.served = [rotated];
    clock.tick(499);
    const withinCooldown = await verifier.verify(token);
    clock.tick(2);
    const afterCooldown = await verifier.verify(token);

    expect(beforeRotation).to.equal(undefined);
    expect(withinCooldown).to.equal(undefined);
    expect(afterCooldown).to.deep.equal({ tenant: 't', scopes: ['plants:read'] });
    expect(provider.fetches).to.equal(2);
  });

  it('when unknown kids flood, then the JWKS is refetched at most once per cooldown', async () => {
    const verifier = new JwtTokenVerifier(jwtConfigFor(provider), { cooldownMs: 60_000 });
    await verifier.verify(await provider.sign({ tenant: 't' }));

    for (let i = 0; i < 20; i++) {
      const stranger = await signingKey(`unknown-${i}`, 'ES256');
      expect(await verifier.verify(await provider.sign({ tenant: 't' }, stranger))).to.equal(
        undefined,
      );
    }

    expect(provider.fetches).to.equal(1);
  });

  it('when the JWKS cannot be fetched, then verification rejects as unavailable (503), not 401', async () => {
    const config = {
      ...jwtConfigFor(provider),
      keys: { kind: 'jwks' as const, url: `http://127.0.0.1:${await freePort()}/jwks` },
    };
    const verifier = new JwtTokenVerifier(config);

    const error = await rejection(verifier.verify(await provider.sign({ tenant: 't' })));

    expect(isPlantError(error) && error.code).to.equal('token-verification-unavailable');
  });

  it('when the provider refuses the JWKS, then JWTs are answered unavailable without another fetch until the retry time has passed', async () => {
    const verifier = new JwtTokenVerifier(jwtConfigFor(provider), { retryMs: 60_000 });
    const token = await provider.sign({ tenant: 't' });
    provider.refusing = true;

    const refusals = [];
    for (let i = 0; i < 20; i++) refusals.push(await rejection(verifier.verify(token)));
    provider.refusing = false;
    refusals.push(await rejection(verifier.verify(token)));

    for (const error of refusals) {
      expect(isPlantError(error) && error.code).to.equal('token-verification-unavailable');
    }
    expect(provider.fetches).to.equal(1);
  });

  it('when the retry time after a refused JWKS has passed, then the next JWT fetches it again and is accepted', async () => {
    const verifier = new JwtTokenVerifier(jwtConfigFor(provider), { retryMs: 200 });
    const token = await provider.sign({ tenant: 't', scope: 'plants:read' });
    provider.refusing = true;
    const refused = await rejection(verifier.verify(token));
    provider.refusing = false;
    clock.tick(199);
    const stillRefused = await rejection(verifier.verify(token));

    clock.tick(2);
    const accepted = await verifier.verify(token);

    expect(isPlantError(refused) && refused.code).to.equal('token-verification-unavailable');
    expect(isPlantError(stillRefused) && stillRefused.code).to.equal(
      'token-verification-unavailable',
    );
    expect(accepted).to.deep.equal({ tenant: 't', scopes: ['plants:read'] });
    expect(provider.fetches).to.equal(2);
  });

  it('when the provider streams a key set of 50 MB, then the verifier cuts it past 1 MiB, answers unavailable, logs once, and recovers once the set is normal', async () => {
    const lines: string[] = [];
    const log = (level: string) => (_: object, message?: string) =>
      lines.push(`${level} ${message}`);
    const logger = { debug() {}, info: log('info'), warn: log('warn'), error: log('error') };
    // Each refusal fetches again (no retry time): each oversized answer is cut.
    const verifier = new JwtTokenVerifier(jwtConfigFor(provider), { logger, retryMs: 0 });
    const token = await provider.sign({ tenant: 't' });
    provider.oversized = { bytes: 50 * MB, chunkBytes: 64 * 1024, everyMs: 5 };

    const refusals = [];
    for (let i = 0; i < 3; i++) {
      refusals.push(await rejection(verifier.verify(token)));
      const sent = await provider.oversizedSent!;
      // Past the bound, less what the sockets of both ends hold before the client reads it.
      expect(sent.whole).to.equal(false);
      expect(sent.written).to.be.below(JWKS_MAX_BYTES + 8 * MB);
    }
    provider.oversized = undefined;
    const accepted = await verifier.verify(token);

    for (const error of refusals) {
      expect(isPlantError(error) && error.code).to.equal('token-verification-unavailable');
    }
    expect(provider.fetches).to.equal(4);
    expect(accepted).to.deep.equal({ tenant: 't', scopes: [] });
    expect(lines).to.deep.equal([
      'warn the JWKS could not be fetched',
      'info the JWKS can be fetched again',
    ]);
  });

  it('when the tenant claim is configured, then that claim names the tenant', async () => {
    const verifier = new JwtTokenVerifier({ ...jwtConfigFor(provider), tenantClaim: 'org_id' });

    expect(
      await verifier.verify(await provider.sign({ org_id: 'acme', tenant: 'other' })),
    ).to.deep.equal({
      tenant: 'acme',
      scopes: [],
    });
  });

  it('when an algorithm is not allowed, then a token signed with it is refused', async () => {
    const verifier = new JwtTokenVerifier({ ...jwtConfigFor(provider), algorithms: ['ES256'] });

    expect(await verifier.verify(await provider.sign({ tenant: 't' }))).to.equal(undefined);
    expect(
      await verifier.verify(await provider.sign({ tenant: 't' }, provider.keys[1])),
    ).to.not.equal(undefined);
  });

  it('when a static PEM public key is configured, then tokens it verifies are accepted and others not', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const config = {
      ...jwtConfigFor(provider),
      keys: { kind: 'public-key' as const, key: await exportSPKI(publicKey) },
    };
    const verifier = new JwtTokenVerifier(config);
    const sign = (key: CryptoKey) =>
      new SignJWT({ tenant: 'pem', scope: 'plants:write' })
        .setProtectedHeader({ alg: 'ES256' })
        .setIssuer(provider.issuer)
        .setAudience(provider.audience)
        .setExpirationTime('5m')
        .sign(key);

    expect(await verifier.verify(await sign(privateKey))).to.deep.equal({
      tenant: 'pem',
      scopes: ['plants:write'],
    });
    expect(await verifier.verify(await sign(provider.keys[1]!.privateKey))).to.equal(undefined);
  });
});

const LIMIT = 1000;

describe('boundedFetch', () => {
  let server: Server;
  let url: string;
  let answer: { status: number; body: string; length?: number };
  let closedEarly: Promise<boolean>;

  before(async () => {
    server = createServer((_req, res) => {
      closedEarly = once(res, 'close').then(() => !res.writableFinished);
      res.statusCode = answer.status;
      if (answer.length !== undefined) res.setHeader('Content-Length', answer.length);
      // A declared length is announced first and the body held back: only the header is read.
      if (answer.length !== undefined) res.flushHeaders();
      else res.end(answer.body);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('when the body is within the bound, then it is answered whole, and onBody hears of it', async () => {
    answer = { status: 200, body: 'x'.repeat(LIMIT) };
    let bodies = 0;

    const response = await boundedFetch(LIMIT, () => bodies++)(url, {});

    expect(await response.text()).to.equal(answer.body);
    expect(bodies).to.equal(1);
  });

  it('when Content-Length says more than the bound, then it is refused and the connection cut before any body', async () => {
    answer = { status: 200, body: '', length: 50_000_000 };

    const error = await rejection(boundedFetch(LIMIT)(url, {}));

    expect(error).to.be.instanceOf(BodyTooLarge);
    expect(await closedEarly).to.equal(true);
  });

  it('when the status is not 200, then it comes back without its body', async () => {
    answer = { status: 404, body: 'not here' };

    const response = await boundedFetch(LIMIT)(url, {});

    expect(response.status).to.equal(404);
    expect(await response.text()).to.equal('');
  });
});
