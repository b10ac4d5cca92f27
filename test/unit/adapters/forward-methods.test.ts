import { expect } from 'chai';
import { callOn, forwardMethods } from '../../../src/adapters/forward-methods.js';

interface Counter {
  add(by?: unknown): Promise<unknown>;
  read(): Promise<unknown>;
}

class CountingStore implements Counter {
  count = 0;
  add(by?: unknown): Promise<unknown> {
    this.count += Number(by ?? 1);
    return Promise.resolve(this.count);
  }
  read(): Promise<unknown> {
    return Promise.resolve(this.count);
  }
}

describe('forwardMethods (the store decorators built from a port method list)', () => {
  it('when built from a method list, then it has exactly those methods, each made by forward', async () => {
    const made: string[] = [];
    const decorated = forwardMethods<Counter>(['add', 'read'], (method) => {
      made.push(method);
      return () => Promise.resolve(`forwarded ${method}`);
    });

    expect(Object.keys(decorated).sort()).to.deep.equal(['add', 'read']);
    expect(made).to.deep.equal(['add', 'read']);
    expect(await decorated.read()).to.equal('forwarded read');
  });

  it('when callOn calls a method, then the store is its this and the arguments reach it', async () => {
    const store = new CountingStore();
    const decorated = forwardMethods<Counter>(
      ['add', 'read'],
      (method) =>
        (...args) =>
          callOn(store, method, args),
    );

    expect(await decorated.add(3)).to.equal(3);
    expect(await decorated.add()).to.equal(4);
    expect(await decorated.read()).to.equal(4);
    expect(store.count).to.equal(4);
  });
});
