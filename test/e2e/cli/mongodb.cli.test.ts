import { startMongoServer } from '../../support/mongo-server.js';
import { serverMissing } from '../../support/server-requirement.js';
import { describeTokenLifecycle } from '../../support/token-lifecycle.js';

describeTokenLifecycle('mongodb', async (context) => {
  const server = await startMongoServer();
  if (typeof server === 'string') return serverMissing(context, 'MongoDB', server) as never;
  return {
    // A 1 s cache here (the memory run checks the default 5 s): the bound follows the setting.
    env: {
      PLANT_STORE_STORAGE: 'mongodb',
      MONGODB_URL: server.url,
      PLANT_STORE_TOKEN_CACHE_SECONDS: '1',
    },
    dispose: () => server.dispose(),
  };
});
