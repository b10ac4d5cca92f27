import { expect } from 'chai';
import {
  localRefusals,
  overrunCounter,
} from '../../../../../src/adapters/http/server/connections.js';

describe('overrun refusals', () => {
  const policy = { overruns: 3, windowMs: 30_000, refusalMs: 10_000 };

  it('when an address overruns three times within the window, then the third refuses it, and it counts again from nothing after', () => {
    let now = 0;
    const record = overrunCounter(policy, () => now);

    const seen = [0, 10_000, 20_000, 21_000, 22_000, 23_000].map((at) => {
      now = at;
      return record('198.51.100.7');
    });

    expect(seen).to.deep.equal([false, false, true, false, false, true]);
  });

  it('when overruns are further apart than the window, or from other addresses, then none refuses', () => {
    let now = 0;
    const record = overrunCounter(policy, () => now);

    const seen = [0, 15_000, 30_000, 45_000].map((at) => {
      now = at;
      return record('198.51.100.7');
    });
    seen.push(record('198.51.100.8'), record('198.51.100.9'));

    expect(seen).to.deep.equal([false, false, false, false, false, false]);
  });

  it('when a server reports its own overruns, then its listeners hear each address', () => {
    const refusals = localRefusals();
    const heard: string[] = [];
    refusals.onOverrun((key) => heard.push(key));

    refusals.overran('203.0.113.1');
    refusals.overran('203.0.113.2');

    expect(heard).to.deep.equal(['203.0.113.1', '203.0.113.2']);
  });
});
