import { expect } from 'chai';
import { PageCache } from '../../../../../src/adapters/storage/lmdb/lmdb-page-cache.js';
import type { StoredPlant } from '../../../../../src/domain/plant.js';

const page = (from: number, size = 3): StoredPlant[] =>
  Array.from({ length: size }, (_, i) => ({ id: BigInt(from + i), name: `plant ${from + i}` }));

/** Misses the page twice at its version, so that the cache keeps it (a page missed once is not). */
const keep = (
  cache: PageCache,
  tenant: string,
  version: number,
  limit: number,
  after: bigint | undefined,
  plants: StoredPlant[],
): void => {
  cache.set(tenant, version, limit, after, plants.slice());
  cache.set(tenant, version, limit, after, plants);
};

describe('the embedded store (lmdb) page cache', () => {
  it('when a page is held at a version, then it is answered at that version only, by tenant, limit and after', () => {
    const cache = new PageCache();
    keep(cache, 't', 7, 21, undefined, page(1));
    keep(cache, 't', 7, 21, 3n, page(4));

    expect(cache.get('t', 7, 21, undefined)).to.deep.equal(page(1));
    expect(cache.get('t', 7, 21, 3n)).to.deep.equal(page(4));
    expect(cache.get('t', 8, 21, undefined)).to.equal(undefined);
    expect(cache.get('t', 6, 21, undefined)).to.equal(undefined);
    expect(cache.get('t', 7, 20, undefined)).to.equal(undefined);
    expect(cache.get('t', 7, 21, 2n)).to.equal(undefined);
    expect(cache.get('u', 7, 21, undefined)).to.equal(undefined);
  });

  it('when a page is read again at a new version, then it replaces the old one', () => {
    const cache = new PageCache();
    keep(cache, 't', 1, 21, undefined, page(1));
    keep(cache, 't', 2, 21, undefined, page(10));

    expect(cache.get('t', 2, 21, undefined)).to.deep.equal(page(10));
    expect(cache.get('t', 1, 21, undefined)).to.equal(undefined);
    expect(cache.size.entries).to.equal(1);
  });

  it('when a caller changes what it was answered, then the next answer is unchanged', () => {
    const cache = new PageCache();
    const kept = page(1);
    keep(cache, 't', 1, 21, undefined, kept);
    // The array given is the caller's: the cache holds a copy.
    kept.push({ id: 99n, name: 'pushed' });

    const answered = cache.get('t', 1, 21, undefined)!;
    answered.pop();
    expect(() => {
      (answered[0] as { name: string }).name = 'renamed';
    }).to.throw(TypeError);
    expect(() => {
      (answered[0] as { tag?: string }).tag = 'added';
    }).to.throw(TypeError);

    expect(cache.get('t', 1, 21, undefined)).to.deep.equal(page(1));
  });

  it('when more pages come than the entries allow, then the first in go first', () => {
    const cache = new PageCache({ entries: 2, bytes: 1 << 20 });
    keep(cache, 't', 1, 21, 1n, page(1));
    keep(cache, 't', 1, 21, 2n, page(2));
    keep(cache, 'u', 1, 21, 3n, page(3));

    expect(cache.get('t', 1, 21, 1n)).to.equal(undefined);
    expect(cache.get('t', 1, 21, 2n)).to.deep.equal(page(2));
    expect(cache.get('u', 1, 21, 3n)).to.deep.equal(page(3));
    expect(cache.size.entries).to.equal(2);
  });

  it('when the pages would pass the bytes allowed, then the oldest go, and a page larger than all is not kept', () => {
    const one = new PageCache({ entries: 100, bytes: 1 << 20 });
    keep(one, 't', 1, 21, undefined, page(1, 10));
    const bytes = one.size.bytes;
    const cache = new PageCache({ entries: 100, bytes: bytes * 2 + 1 });
    for (const after of [1n, 2n, 3n]) keep(cache, 't', 1, 21, after, page(1, 10));

    expect(cache.size).to.deep.equal({ entries: 2, bytes: bytes * 2 });
    expect(cache.get('t', 1, 21, 1n)).to.equal(undefined);

    keep(cache, 't', 1, 21, 9n, page(1, 100));
    expect(cache.get('t', 1, 21, 9n)).to.equal(undefined);
    expect(cache.size.entries).to.equal(2);
  });

  it('when the bounds are zero, then nothing is kept', () => {
    const cache = new PageCache({ entries: 0, bytes: 0 });
    keep(cache, 't', 1, 21, undefined, page(1));

    expect(cache.get('t', 1, 21, undefined)).to.equal(undefined);
    expect(cache.size).to.deep.equal({ entries: 0, bytes: 0 });
  });

  it('when a page is missed once, or again at another version, or again after more misses than the cache holds pages, then it is not kept', () => {
    const cache = new PageCache({ entries: 2, bytes: 1 << 20 });
    cache.set('t', 1, 21, undefined, page(1));
    expect(cache.get('t', 1, 21, undefined)).to.equal(undefined);

    cache.set('t', 2, 21, undefined, page(1));
    expect(cache.get('t', 2, 21, undefined)).to.equal(undefined);

    cache.set('t', 2, 21, 5n, page(6));
    cache.set('t', 2, 21, 6n, page(7));
    cache.set('t', 2, 21, undefined, page(1));
    expect(cache.get('t', 2, 21, undefined)).to.equal(undefined);
    expect(cache.size.entries).to.equal(0);

    cache.set('t', 2, 21, undefined, page(1));
    expect(cache.get('t', 2, 21, undefined)).to.deep.equal(page(1));
  });
});
