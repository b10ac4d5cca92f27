import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../../src/config/index.js';

function refusal(value: string): string {
  try {
    loadConfig({ PLANT_STORE_TRUST_PROXY: value });
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as Error).message;
  }
  return expect.fail('accepted');
}

describe('PLANT_STORE_TRUST_PROXY', () => {
  it('when it is unset, empty or off, then no proxy is trusted', () => {
    for (const value of [undefined, '', 'off', 'FALSE', '0']) {
      const env = value === undefined ? {} : { PLANT_STORE_TRUST_PROXY: value };
      expect(loadConfig(env).trustProxy).to.equal(undefined);
    }
  });

  it('when it is a whole number, then that many hops are trusted', () => {
    expect(loadConfig({ PLANT_STORE_TRUST_PROXY: '2' }).trustProxy).to.deep.equal({ hops: 2 });
  });

  it('when it is a list, then those addresses and ranges are the trusted proxies', () => {
    expect(
      loadConfig({ PLANT_STORE_TRUST_PROXY: '10.0.0.0/8, 192.168.1.7,loopback, fd00::/8' })
        .trustProxy,
    ).to.deep.equal({ addresses: ['10.0.0.0/8', '192.168.1.7', 'loopback', 'fd00::/8'] });
  });

  it('when it is neither, then a one-line error names the variable', () => {
    expect(refusal('11')).to.match(/^PLANT_STORE_TRUST_PROXY must be a hop count from 1 to 10/);
    expect(refusal('proxy.example')).to.match(/^PLANT_STORE_TRUST_PROXY must be off, a hop count/);
    expect(refusal('10.0.0.0/33')).to.match(/^PLANT_STORE_TRUST_PROXY/);
  });
});
