import { webhookDeliverySuite } from './support/webhook-delivery.js';

describe('Webhooks on the memory storage (outbox file)', function () {
  this.timeout(30_000);
  webhookDeliverySuite(() => ({ kind: 'memory' }));
});
