import { resolve } from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { expect } from 'chai';
import { defaultWebhookConfig } from '../../../src/adapters/webhooks/webhook-config.js';
import { ConfigError, loadConfig } from '../../../src/config/index.js';
import { defaultMaxConnections } from '../../../src/config/http-limits.js';
import { DEFAULT_HTTP_LIMITS } from '../../../src/adapters/http/server/http-server.js';
import { thrown } from '../../support/rejection.js';

const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const PUBLIC_PEM = publicKey.export({ type: 'spki', format: 'pem' }).toString();
const PRIVATE_PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const JWT = {
  PLANT_STORE_JWT_ISSUER: 'https://issuer.example/',
  PLANT_STORE_JWT_AUDIENCE: 'plant-store',
  PLANT_STORE_JWT_JWKS_URL: 'https://issuer.example/.well-known/jwks.json',
};

const token = (overrides: Record<string, unknown> = {}) => ({
  token: 'abcdefghijklmnop',
  tenant: 't',
  scopes: ['plants:read'],
  ...overrides,
});

const refusal = (env: Record<string, string>): string =>
  thrown(() => loadConfig(env), ConfigError).message;

describe('loadConfig', () => {
  it('when nothing is set, then the documented defaults apply', () => {
    expect(loadConfig({})).to.deep.equal({
      port: 8080,
      host: '127.0.0.1',
      storage: { kind: 'lmdb', dataDir: resolve('.plant-store') },
      staticTokens: [],
      logLevel: 'info',
      rateLimit: 0,
      tokenCacheSeconds: 5,
      http: { ...DEFAULT_HTTP_LIMITS, maxConnections: defaultMaxConnections() },
      authFailureLimit: 10,
      accessLog: true,
      metrics: true,
      shutdownGraceSeconds: 10,
      startupTimeoutSeconds: 30,
      docs: true,
      webhooks: defaultWebhookConfig(),
    });
  });

  it('when PLANT_STORE_DOCS is off (any case), then the API reference is turned off', () => {
    expect(loadConfig({ PLANT_STORE_DOCS: 'OFF' }).docs).to.equal(false);
    expect(loadConfig({ PLANT_STORE_DOCS: 'on' }).docs).to.equal(true);
  });

  it('when tokens are valid, then they are read with their scopes', () => {
    const config = loadConfig({
      PLANT_STORE_TOKENS: JSON.stringify([token({ scopes: ['plants:read', 'plants:write'] })]),
    });
    expect(config.staticTokens).to.deep.equal([token({ scopes: ['plants:read', 'plants:write'] })]);
  });

  it('when the JWT variables are set, then JWTs are configured with the documented defaults', () => {
    expect(loadConfig(JWT).jwt).to.deep.equal({
      issuer: 'https://issuer.example/',
      audience: ['plant-store'],
      keys: { kind: 'jwks', url: 'https://issuer.example/.well-known/jwks.json' },
      algorithms: ['RS256', 'ES256'],
      tenantClaim: 'tenant',
      clockToleranceSeconds: 30,
    });
  });

  it('when every JWT variable is given, then each is read', () => {
    const config = loadConfig({
      ...JWT,
      PLANT_STORE_JWT_JWKS_URL: '',
      PLANT_STORE_JWT_PUBLIC_KEY: PUBLIC_PEM,
      PLANT_STORE_JWT_AUDIENCE: 'a, b',
      PLANT_STORE_JWT_ALGORITHMS: 'ES256,EdDSA',
      PLANT_STORE_JWT_TENANT_CLAIM: 'org',
      PLANT_STORE_JWT_CLOCK_TOLERANCE: '5',
      PLANT_STORE_TOKEN_CACHE_SECONDS: '1',
    });
    expect(config.jwt).to.deep.equal({
      issuer: 'https://issuer.example/',
      audience: ['a', 'b'],
      keys: { kind: 'public-key', key: PUBLIC_PEM },
      algorithms: ['ES256', 'EdDSA'],
      tenantClaim: 'org',
      clockToleranceSeconds: 5,
    });
    expect(config.tokenCacheSeconds).to.equal(1);
  });

  it('when PLANT_STORE_STARTUP_TIMEOUT is set, then start-up waits that many seconds', () => {
    expect(loadConfig({ PLANT_STORE_STARTUP_TIMEOUT: '120' }).startupTimeoutSeconds).to.equal(120);
  });

  it('when the JWKS URL is plain http on loopback, then it is allowed for development', () => {
    const url = 'http://127.0.0.1:9999/jwks';
    expect(loadConfig({ ...JWT, PLANT_STORE_JWT_JWKS_URL: url }).jwt?.keys).to.deep.equal({
      kind: 'jwks',
      url,
    });
  });

  const bad: [string, Record<string, string>, RegExp][] = [
    [
      'a JWT setting without an issuer',
      { PLANT_STORE_JWT_AUDIENCE: 'x' },
      /^PLANT_STORE_JWT_ISSUER must be set when PLANT_STORE_JWT_AUDIENCE is/,
    ],
    [
      'an issuer without an audience',
      { ...JWT, PLANT_STORE_JWT_AUDIENCE: '' },
      /^PLANT_STORE_JWT_AUDIENCE /,
    ],
    [
      'an issuer without keys',
      { ...JWT, PLANT_STORE_JWT_JWKS_URL: '' },
      /^PLANT_STORE_JWT_JWKS_URL or PLANT_STORE_JWT_PUBLIC_KEY /,
    ],
    [
      'both a JWKS URL and a public key',
      { ...JWT, PLANT_STORE_JWT_PUBLIC_KEY: PUBLIC_PEM },
      /^PLANT_STORE_JWT_JWKS_URL or PLANT_STORE_JWT_PUBLIC_KEY /,
    ],
    [
      'a JWKS URL over plain http',
      { ...JWT, PLANT_STORE_JWT_JWKS_URL: 'http://issuer.example/jwks' },
      /^PLANT_STORE_JWT_JWKS_URL must use https/,
    ],
    [
      'a JWKS URL that is not a URL',
      { ...JWT, PLANT_STORE_JWT_JWKS_URL: 'jwks.json' },
      /^PLANT_STORE_JWT_JWKS_URL /,
    ],
    [
      'a private key as the public key',
      { ...JWT, PLANT_STORE_JWT_JWKS_URL: '', PLANT_STORE_JWT_PUBLIC_KEY: PRIVATE_PEM },
      /^PLANT_STORE_JWT_PUBLIC_KEY /,
    ],
    [
      'a symmetric JWK as the public key',
      {
        ...JWT,
        PLANT_STORE_JWT_JWKS_URL: '',
        PLANT_STORE_JWT_PUBLIC_KEY: '{"kty":"oct","k":"c2VjcmV0"}',
      },
      /^PLANT_STORE_JWT_PUBLIC_KEY /,
    ],
    [
      'an HMAC algorithm',
      { ...JWT, PLANT_STORE_JWT_ALGORITHMS: 'RS256,HS256' },
      /^PLANT_STORE_JWT_ALGORITHMS .*HS256/,
    ],
    [
      'the none algorithm',
      { ...JWT, PLANT_STORE_JWT_ALGORITHMS: 'none' },
      /^PLANT_STORE_JWT_ALGORITHMS /,
    ],
    [
      'a token cache of 0 s',
      { PLANT_STORE_TOKEN_CACHE_SECONDS: '0' },
      /^PLANT_STORE_TOKEN_CACHE_SECONDS /,
    ],
    [
      'a clock tolerance over 300 s',
      { ...JWT, PLANT_STORE_JWT_CLOCK_TOLERANCE: '3600' },
      /^PLANT_STORE_JWT_CLOCK_TOLERANCE /,
    ],
    ['a port out of range', { PORT: '70000' }, /^PORT /],
    ['a port with letters', { PORT: '80a' }, /^PORT /],
    ['an unknown storage', { PLANT_STORE_STORAGE: 'sqlite' }, /^PLANT_STORE_STORAGE /],
    ['an unknown log level', { LOG_LEVEL: 'loud' }, /^LOG_LEVEL /],
    ['a bad rate limit', { PLANT_STORE_RATE_LIMIT: '-1' }, /^PLANT_STORE_RATE_LIMIT /],
    [
      'a start-up bound of 0 s',
      { PLANT_STORE_STARTUP_TIMEOUT: '0' },
      /^PLANT_STORE_STARTUP_TIMEOUT /,
    ],
    [
      'a docs switch that is neither on nor off',
      { PLANT_STORE_DOCS: 'maybe' },
      /^PLANT_STORE_DOCS /,
    ],
    ['tokens that are not JSON', { PLANT_STORE_TOKENS: '[{' }, /^PLANT_STORE_TOKENS /],
    ['tokens that are not an array', { PLANT_STORE_TOKENS: '{}' }, /^PLANT_STORE_TOKENS /],
    [
      'a short token',
      { PLANT_STORE_TOKENS: JSON.stringify([token(), token({ token: 'short' })]) },
      /^PLANT_STORE_TOKENS\[1\]\.token/,
    ],
    [
      'a token with a space',
      { PLANT_STORE_TOKENS: JSON.stringify([token({ token: 'abcdefgh ijklmnopq' })]) },
      /^PLANT_STORE_TOKENS\[0\]\.token/,
    ],
    [
      'an empty tenant',
      { PLANT_STORE_TOKENS: JSON.stringify([token({ tenant: '' })]) },
      /^PLANT_STORE_TOKENS\[0\]\.tenant/,
    ],
    [
      'a tenant with an unpaired surrogate',
      { PLANT_STORE_TOKENS: JSON.stringify([token({ tenant: 'a\ud800' })]) },
      /^PLANT_STORE_TOKENS\[0\]\.tenant/,
    ],
    [
      'an unknown scope',
      { PLANT_STORE_TOKENS: JSON.stringify([token({ scopes: ['plants:admin'] })]) },
      /^PLANT_STORE_TOKENS\[0\]\.scopes/,
    ],
    [
      'a repeated token',
      { PLANT_STORE_TOKENS: JSON.stringify([token(), token({ tenant: 'u' })]) },
      /^PLANT_STORE_TOKENS\[1\]\.token/,
    ],
    [
      'an entry that is not an object',
      { PLANT_STORE_TOKENS: '[null]' },
      /^PLANT_STORE_TOKENS\[0\]/,
    ],
  ];
  for (const [what, env, message] of bad) {
    it(`when the environment has ${what}, then a one-line error names the variable`, () => {
      const text = refusal(env);
      expect(text).to.match(message);
      expect(text).to.not.include('\n');
      expect(text).to.not.include('abcdefghijklmnop');
      expect(text).to.not.include('PRIVATE KEY');
    });
  }
});
