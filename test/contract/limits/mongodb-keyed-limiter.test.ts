import { openMongoStorage } from '../../../src/adapters/storage/mongodb/open-mongo-storage.js';
import { startMongoServer } from '../../support/mongo-server.js';
import { suiteServer } from '../../support/server-requirement.js';
import { describeKeyedLimiter } from './keyed-limiter-contract.js';

describe('MongoDB', () => {
  const mongo = suiteServer('MongoDB', startMongoServer, (server) => server.dispose());
  describeKeyedLimiter('MongoDB', () => openMongoStorage({ url: mongo().url }));
});
