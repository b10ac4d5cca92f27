import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../../src/config/index.js';

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
