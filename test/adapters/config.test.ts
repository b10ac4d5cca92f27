import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/adapters/config.js';

const token = (overrides: Record<string, unknown> = {}) => ({
  token: 'abcdefghijklmnop',
  tenant: 't',
  scopes: ['plants:read'],
  ...overrides,
});

function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as Error).message;
  }
  return expect.fail('accepted');
}

describe('loadConfig', () => {
  it('when nothing is set, then the documented defaults apply', () => {
    expect(loadConfig({})).to.deep.equal({
      port: 8080,
      host: '127.0.0.1',
      storage: { kind: 'memory' },
      tokens: [],
      logLevel: 'info',
      rateLimit: 0,
    });
  });

  it('when tokens are valid, then they are read with their scopes', () => {
    const config = loadConfig({
      PLANT_STORE_TOKENS: JSON.stringify([token({ scopes: ['plants:read', 'plants:write'] })]),
    });
    expect(config.tokens).to.deep.equal([token({ scopes: ['plants:read', 'plants:write'] })]);
  });

  const bad: [string, Record<string, string>, RegExp][] = [
    ['a port out of range', { PORT: '70000' }, /^PORT /],
    ['a port with letters', { PORT: '80a' }, /^PORT /],
    ['an unknown storage', { PLANT_STORE_STORAGE: 'sqlite' }, /^PLANT_STORE_STORAGE /],
    ['an unknown log level', { LOG_LEVEL: 'loud' }, /^LOG_LEVEL /],
    ['a bad rate limit', { PLANT_STORE_RATE_LIMIT: '-1' }, /^PLANT_STORE_RATE_LIMIT /],
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
    });
  }
});
