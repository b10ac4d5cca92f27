import { openMongoPlantStore } from '../../../src/adapters/storage/mongodb/open-mongo-plant-store.js';
import { startMongoServer, type MongoServer } from '../../support/mongo-server.js';
import { serverMissing } from '../../support/server-requirement.js';
import { describePlantStoreContract } from './plant-store-contract.js';

describe('MongoPlantStore', () => {
  let server: MongoServer | undefined;
  before(async function () {
    const found = await startMongoServer();
    if (typeof found === 'string') return serverMissing(this, 'MongoDB', found);
    server = found;
  });
  after(() => server?.dispose());

  describePlantStoreContract('mongodb', { open: () => openMongoPlantStore(server!.url) });
});
