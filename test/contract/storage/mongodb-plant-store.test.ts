import { openMongoStorage } from '../../../src/adapters/storage/mongodb/open-mongo-storage.js';
import { startMongoServer } from '../../support/mongo-server.js';
import { suiteServer } from '../../support/server-requirement.js';
import { describePlantStoreContract } from './plant-store-contract.js';

describe('MongoPlantStore', () => {
  const server = suiteServer('MongoDB', startMongoServer, (found) => found.dispose());
  describePlantStoreContract('mongodb', { open: () => openMongoStorage(server()) });
});
