import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLmdbStorage } from '../../../src/adapters/storage/lmdb/open-lmdb-storage.js';
import { describeKeyedLimiter } from './keyed-limiter-contract.js';

describe('lmdb', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'plant-store-limits-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  describeKeyedLimiter('lmdb', () => openLmdbStorage({ dataDir }));
});
