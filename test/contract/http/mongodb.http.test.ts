import { startMongoServer, type MongoServer } from '../../support/mongo-server.js';
import { serverMissing } from '../../support/server-requirement.js';
import { describeHttpContract } from './http-contract.js';

describe('MongoDB storage', () => {
  let server: MongoServer | undefined;
  after(() => server?.dispose());

  describeHttpContract('mongodb', async (context) => {
    const found = await startMongoServer();
    if (typeof found === 'string') serverMissing(context, 'MongoDB', found);
    server = found as MongoServer;
    return { kind: 'mongodb', url: server.url };
  });
});
