import { expect } from 'chai';
import { clientKey, networkKey } from '../../../../src/adapters/http/client-key.js';

describe('networkKey (the IPv6 /56 beside clientKey)', () => {
  it('when addresses share a /56 but not a /64, then they share a network key and not a client key', () => {
    expect(networkKey('2001:db8:1:200::1')).to.equal('2001:0db8:0001:0200::/56');
    expect(networkKey('2001:db8:1:2ff:aaaa::1')).to.equal('2001:0db8:0001:0200::/56');
    expect(clientKey('2001:db8:1:200::1')).to.not.equal(clientKey('2001:db8:1:2ff:aaaa::1'));
  });

  it('when addresses differ inside the first 56 bits, then their network keys differ', () => {
    expect(networkKey('2001:db8:1:300::1')).to.equal('2001:0db8:0001:0300::/56');
    expect(networkKey('2001:db8::1')).to.equal('2001:0db8:0000:0000::/56');
    expect(networkKey('::1')).to.equal('0000:0000:0000:0000::/56');
  });

  it('when the address is IPv4 (mapped or not) or absent, then there is no network key', () => {
    expect(networkKey('192.0.2.7')).to.equal(undefined);
    expect(networkKey('::ffff:192.0.2.7')).to.equal(undefined);
    expect(networkKey(undefined)).to.equal(undefined);
  });
});
