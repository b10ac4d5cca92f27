import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { StorageOptions } from '../../../src/config/index.js';
import { describeAdapters } from '../../support/adapter-table.js';
import { webhookDeliverySuite } from './support/webhook-delivery.js';

describeAdapters<StorageOptions>(
  [
    // The outbox in the process.
    { name: 'memory', on: 'in process', open: () => ({ kind: 'memory' }) },
    // The outbox in the default store's directory, a new one for each test.
    {
      name: 'lmdb',
      on: 'in process',
      open: ({ directory }) => ({ kind: 'lmdb', dataDir: join(directory, randomUUID()) }),
    },
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
