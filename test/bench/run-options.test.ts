import { expect } from 'chai';
import { COLD_PAGES, LIST_PATH, listPaths, parseRunOptions } from '../../bench/run-options.js';

describe('bench/run-options', () => {
  it('when given no option, then it runs 3 rounds of 10 s with scaling to 1M plants, the tags scenario at 1M and the fixed-rate latency', () => {
    const options = parseRunOptions([]);
    expect(options.settings).to.include({
      rounds: 3,
      duration: 10,
      warmup: 2,
      seed: 10_000,
      tagPlants: 1_000_000,
    });
    expect(options.settings.scaleSizes).to.deep.equal([1000, 100_000, 1_000_000]);
    expect(options).to.include({
      quick: false,
      scaling: true,
      tags: true,
      latency: true,
      spinUs: undefined,
    });
    expect(options.chosen).to.equal(undefined);
  });

  it('when given the options the README names, then each is read', () => {
    const options = parseRunOptions([
      '--servers',
      'service,koa',
      '--spin',
      '3',
      '--baseline',
      'a=/tmp/a.js',
      '--baseline',
      'redis:b=/tmp/b.js',
      '--rounds',
      '4',
      '--duration',
      '4',
      '--no-scaling',
      '--no-tags',
      '--no-latency',
      '--no-redis',
      '--observe',
      '--limits',
      '--ferretdb',
    ]);
    expect([...options.chosen!]).to.deep.equal(['service', 'koa']);
    expect(options.baselines).to.deep.equal(['a=/tmp/a.js', 'redis:b=/tmp/b.js']);
    expect(options).to.include({
      spinUs: 3,
      scaling: false,
      tags: false,
      latency: false,
      observe: true,
      limits: true,
      ferretdb: true,
    });
    expect(options.settings).to.include({ rounds: 4, duration: 4 });
    expect([...options.skipStores]).to.include('redis');
  });

  it('when --quick is given, then one short round on a small store and a small tags scenario, without MongoDB unless one is named', () => {
    const options = parseRunOptions(['--quick', '--rounds', '9']);
    expect(options.settings).to.include({ rounds: 1, seed: 200, duration: 0.5, tagPlants: 10_000 });
    expect(options.settings.scaleSizes).to.deep.equal([1000]);
    if (!process.env.BENCH_MONGODB_URL) expect([...options.skipStores]).to.include('mongodb');
  });

  it('when an option is unknown or a number is not above 0, then it throws before anything starts', () => {
    expect(() => parseRunOptions(['--qiuck'])).to.throw(/Unknown option '--qiuck'/);
    expect(() => parseRunOptions(['--rounds', 'x'])).to.throw(
      '--rounds takes a number above 0, got x',
    );
    expect(() => parseRunOptions(['--spin', '0'])).to.throw('--spin takes a number above 0, got 0');
  });

  it('when given --cold-pages, then GET asks for that many distinct pages of the seeded plants, else for the first page', () => {
    expect(parseRunOptions(['--cold-pages']).settings.coldPages).to.equal(true);
    expect(parseRunOptions([]).settings.coldPages).to.equal(false);
    expect(listPaths(false)).to.deep.equal([LIST_PATH]);

    const paths = listPaths(true);
    expect(new Set(paths).size).to.equal(COLD_PAGES);
    for (const path of paths) {
      const cursor = new URLSearchParams(path.split('?')[1]).get('cursor')!;
      const id = Number(Buffer.from(cursor, 'base64url').toString().slice('1:'.length));
      expect(id).to.be.within(1, 9_000);
    }
  });
});
