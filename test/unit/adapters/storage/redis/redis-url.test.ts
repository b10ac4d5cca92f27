import { expect } from 'chai';
import {
  describeRedisTarget,
  parseRedisUrl,
  RedisUrlError,
} from '../../../../../src/adapters/storage/redis/redis-url.js';

describe('parseRedisUrl', () => {
  it('when given a standalone URL, then it reads host, port, database and credentials', () => {
    expect(parseRedisUrl('rediss://app:p%40ss@cache.local:6380/2')).to.deep.equal({
      cluster: false,
      nodes: [{ host: 'cache.local', port: 6380 }],
      db: 2,
      tls: true,
      username: 'app',
      password: 'p@ss',
    });
  });

  it('when the port, database and user are left out, then 6379, 0 and none apply', () => {
    expect(parseRedisUrl('redis://:secret@127.0.0.1')).to.deep.equal({
      cluster: false,
      nodes: [{ host: '127.0.0.1', port: 6379 }],
      db: 0,
      tls: false,
      password: 'secret',
    });
  });

  it('when given a cluster URL, then every seed node is read, IPv6 included', () => {
    const target = parseRedisUrl('redis+cluster://10.0.0.1:7000,[::1]:7001,node-c');

    expect(target.cluster).to.equal(true);
    expect(target.nodes).to.deep.equal([
      { host: '10.0.0.1', port: 7000 },
      { host: '::1', port: 7001 },
      { host: 'node-c', port: 6379 },
    ]);
    expect(describeRedisTarget(target)).to.equal('10.0.0.1:7000,[::1]:7001,node-c:6379');
  });

  for (const [url, why] of [
    ['http://127.0.0.1:6379', /must start with redis/],
    ['redis://', /names no host/],
    ['redis://a:1,b:2', /redis\+cluster/],
    ['redis://host/db', /database number/],
    ['redis+cluster://a:7000/1', /take no database/],
    ['redis://host:99999', /not a host or host:port/],
    ['redis://:%zz@host', /password is not valid/],
  ] as const) {
    it(`when given ${url}, then it throws saying why`, () => {
      expect(() => parseRedisUrl(url))
        .to.throw(RedisUrlError, why)
        .and.satisfy((e: Error) => !e.message.includes('%zz'));
    });
  }
});
