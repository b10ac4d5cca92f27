import { startRedisServer } from '../../support/redis-server.js';
import { serverMissing } from '../../support/server-requirement.js';
import { webhookDeliverySuite } from './support/webhook-delivery.js';

describe('Webhooks on Redis', function () {
  this.timeout(30_000);
  let url = '';
  let close: (() => Promise<void>) | undefined;

  before(async function () {
    const started = await startRedisServer();
    if (typeof started === 'string') return serverMissing(this, 'Redis', started);
    ({ url, close } = started);
  });
  after(async () => close?.());

  webhookDeliverySuite(() => ({ kind: 'redis', url }));
});
