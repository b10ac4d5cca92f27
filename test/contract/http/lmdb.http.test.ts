import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeHttpContract } from './http-contract.js';

describe('HTTP on the embedded store (lmdb)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'plant-store-http-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  describeHttpContract('lmdb', async () => ({ kind: 'lmdb', dataDir }));
});
