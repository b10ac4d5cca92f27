import { startMongoServer, type MongoServer } from '../../support/mongo-server.js';
import { serverMissing } from '../../support/server-requirement.js';
import { webhookDeliverySuite } from './support/webhook-delivery.js';

describe('Webhooks on MongoDB (FerretDB when no mongod)', function () {
  this.timeout(30_000);
  let server: MongoServer | undefined;

  before(async function () {
    this.timeout(60_000);
    const started = await startMongoServer();
    if (typeof started === 'string') return serverMissing(this, 'MongoDB', started);
    server = started;
  });
  after(async () => server?.dispose());

  webhookDeliverySuite(() => ({ kind: 'mongodb', url: server!.url }));
});
