import { useRedis, type RedisUnderTest } from '../../support/redis-server.js';
import { serverMissing } from '../../support/server-requirement.js';
import { describeClient } from './support/client-suite.js';

describe('plant-store/client, one run on Redis', () => {
  let redis: RedisUnderTest | undefined;
  after(async () => redis?.close());

  describeClient('redis', async (context) => {
    const provided = await useRedis();
    if (typeof provided === 'string') serverMissing(context, 'Redis', provided);
    redis = provided as RedisUnderTest;
    return { kind: 'redis', url: redis.url, prefix: redis.prefix };
  });
});
