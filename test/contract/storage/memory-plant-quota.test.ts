import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMemoryStorage } from '../../../src/adapters/storage/memory/open-memory-storage.js';
import { describePlantQuotaContract } from './plant-quota-contract.js';

const directory = mkdtempSync(join(tmpdir(), 'plant-store-quota-'));
after(() => rmSync(directory, { recursive: true, force: true }));

// The whole memory storage: its plants under the quota and the outbox file their events go to.
describePlantQuotaContract('memory', (maxPlantsPerTenant) =>
  openMemoryStorage({
    tokenFile: join(directory, 'tokens.json'),
    storage: { maxPlantsPerTenant },
    webhooks: {
      file: join(directory, 'webhooks.json'),
      outboxFile: join(directory, 'webhook-outbox.jsonl'),
      cacheMs: 0,
    },
  }),
);
