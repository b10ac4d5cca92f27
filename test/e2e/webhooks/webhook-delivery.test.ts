import type { StorageOptions } from '../../../src/config/index.js';
import { describeAdapters } from '../../support/adapter-table.js';
import { webhookDeliverySuite } from './support/webhook-delivery.js';

describeAdapters<StorageOptions>(
  [
    // The outbox file of the memory storage.
    { name: 'memory', on: 'in process', open: () => ({ kind: 'memory' }) },
    {
      name: 'Redis',
      on: 'Redis',
      open: (redis) => ({ kind: 'redis', url: redis.url, prefix: redis.prefix }),
    },
    { name: 'MongoDB', on: 'MongoDB', open: (server) => ({ kind: 'mongodb', url: server.url }) },
  ],
  (name, storage) =>
    describe(`Webhooks on ${name}`, function () {
      this.timeout(30_000);
      webhookDeliverySuite(storage);
    }),
);
