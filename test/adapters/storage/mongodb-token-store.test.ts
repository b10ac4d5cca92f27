import { openMongoTokenStore } from '../../../src/adapters/storage/mongodb/mongo-token-store.js';
import { startMongoServer, type MongoServer } from '../../support/mongo-server.js';
import { serverMissing } from '../../support/server-requirement.js';
import { describeTokenStoreContract } from './token-store-contract.js';

describe('MongoTokenStore', () => {
  let server: MongoServer | undefined;
  before(async function () {
    const found = await startMongoServer();
    if (typeof found === 'string') return serverMissing(this, 'MongoDB', found);
    server = found;
  });
  after(() => server?.dispose());

  describeTokenStoreContract('mongodb', { open: () => openMongoTokenStore(server!.url) });
});
