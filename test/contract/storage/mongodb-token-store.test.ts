import { openMongoStorage } from '../../../src/adapters/storage/mongodb/open-mongo-storage.js';
import { startMongoServer } from '../../support/mongo-server.js';
import { suiteServer } from '../../support/server-requirement.js';
import { describeTokenStoreContract } from './token-store-contract.js';

describe('MongoTokenStore', () => {
  const server = suiteServer('MongoDB', startMongoServer, (found) => found.dispose());
  describeTokenStoreContract('mongodb', { open: () => openMongoStorage(server()) });
});
