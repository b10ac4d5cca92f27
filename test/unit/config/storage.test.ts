import { resolve } from 'node:path';
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../../src/config/index.js';

const lmdbEnv = (more: Record<string, string>) => ({ PLANT_STORE_STORAGE: 'lmdb', ...more });
const redisEnv = (more: Record<string, string>) => ({ PLANT_STORE_STORAGE: 'redis', ...more });

describe('loadConfig for Redis', () => {
  it('when REDIS_URL and PLANT_STORE_REDIS_PREFIX are set, then storage carries both', () => {
    const env = redisEnv({
      REDIS_URL: 'redis+cluster://a:7000,b:7001',
      PLANT_STORE_REDIS_PREFIX: 'ps:',
    });

    expect(loadConfig(env).storage).to.deep.equal({
      kind: 'redis',
      url: 'redis+cluster://a:7000,b:7001',
      prefix: 'ps:',
    });
  });

  it('when nothing is set, then the local default URL and no prefix apply', () => {
    expect(loadConfig(redisEnv({})).storage).to.deep.equal({
      kind: 'redis',
      url: 'redis://127.0.0.1:6379',
    });
  });

  it('when REDIS_URL is unusable, then start-up stops naming REDIS_URL and never the password', () => {
    expect(() => loadConfig(redisEnv({ REDIS_URL: 'redis://:hunter2@a:1,b:2' })))
      .to.throw(ConfigError, /^REDIS_URL names several hosts/)
      .and.satisfy((error: Error) => !error.message.includes('hunter2'));
  });

  it('when the prefix holds a brace, then start-up stops naming PLANT_STORE_REDIS_PREFIX', () => {
    expect(() => loadConfig(redisEnv({ PLANT_STORE_REDIS_PREFIX: 'a{b}' }))).to.throw(
      ConfigError,
      /^PLANT_STORE_REDIS_PREFIX must not contain \{ or \}/,
    );
  });
});

describe('loadConfig for the embedded store (lmdb)', () => {
  it('when nothing is set, then the data directory is .plant-store under the working directory, flushed', () => {
    expect(loadConfig(lmdbEnv({})).storage).to.deep.equal({
      kind: 'lmdb',
      dataDir: resolve('.plant-store'),
    });
  });

  it('when PLANT_STORE_DATA_DIR is relative, then it is resolved against the working directory', () => {
    expect(loadConfig(lmdbEnv({ PLANT_STORE_DATA_DIR: 'data/plants' })).storage).to.include({
      dataDir: resolve('data/plants'),
    });
  });

  it('when PLANT_STORE_DURABILITY is commit-only, then the storage carries it, with the quota', () => {
    const env = lmdbEnv({
      PLANT_STORE_DATA_DIR: '/var/lib/plant-store',
      PLANT_STORE_DURABILITY: 'commit-only',
      PLANT_STORE_MAX_PLANTS_PER_TENANT: '10',
    });

    expect(loadConfig(env).storage).to.deep.equal({
      kind: 'lmdb',
      dataDir: '/var/lib/plant-store',
      durability: 'commit-only',
      maxPlantsPerTenant: 10,
    });
  });

  it('when PLANT_STORE_DURABILITY is something else, then start-up stops naming it and the choices', () => {
    expect(() => loadConfig(lmdbEnv({ PLANT_STORE_DURABILITY: 'fast' }))).to.throw(
      ConfigError,
      /^PLANT_STORE_DURABILITY must be .*flush.*commit-only.* \(got "fast"\)$/,
    );
  });
});
