import { useRedis } from '../../support/redis-server.js';
import { serverMissing } from '../../support/server-requirement.js';
import { describeTokenLifecycle } from '../../support/token-lifecycle.js';

describeTokenLifecycle('redis', async (context) => {
  const redis = await useRedis();
  if (typeof redis === 'string') return serverMissing(context, 'Redis', redis) as never;
  // A 1 s cache here (the memory run checks the default 5 s): the bound follows the setting.
  return {
    env: {
      PLANT_STORE_STORAGE: 'redis',
      REDIS_URL: redis.url,
      PLANT_STORE_REDIS_PREFIX: redis.prefix,
      PLANT_STORE_TOKEN_CACHE_SECONDS: '1',
    },
    dispose: () => redis.close(),
  };
});
