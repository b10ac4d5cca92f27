import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../../src/config/index.js';

function refusal(value: string): string {
  try {
    loadConfig({ PLANT_STORE_CORS_ORIGINS: value });
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as Error).message;
  }
  return expect.fail(`accepted "${value}"`);
}

describe('PLANT_STORE_CORS_ORIGINS', () => {
  it('when it is unset or empty, then CORS is off', () => {
    for (const env of [{}, { PLANT_STORE_CORS_ORIGINS: '' }, { PLANT_STORE_CORS_ORIGINS: ' , ' }]) {
      expect(loadConfig(env).corsOrigins).to.equal(undefined);
    }
  });

  it('when it is *, then any origin is allowed', () => {
    expect(loadConfig({ PLANT_STORE_CORS_ORIGINS: ' * ' }).corsOrigins).to.equal('*');
  });

  it('when it lists origins, then exactly those are allowed', () => {
    expect(
      loadConfig({
        PLANT_STORE_CORS_ORIGINS: 'https://app.example, http://localhost:3000,http://[::1]:8080',
      }).corsOrigins,
    ).to.deep.equal(['https://app.example', 'http://localhost:3000', 'http://[::1]:8080']);
  });

  it('when an entry is not an origin as browsers send it, then a one-line error names the variable (and the origin meant)', () => {
    expect(refusal('https://app.example/')).to.match(
      /^PLANT_STORE_CORS_ORIGINS must be \* or a comma-separated list of origins.*"https:\/\/app.example\/"; did you mean https:\/\/app.example\?\)$/,
    );
    expect(refusal('HTTPS://App.Example:443')).to.include('did you mean https://app.example?');
    for (const value of [
      'app.example',
      'null',
      '*, https://app.example',
      'file:///x',
      'https://a.example/path',
    ]) {
      expect(refusal(value), value).to.match(/^PLANT_STORE_CORS_ORIGINS must be/);
    }
  });
});
