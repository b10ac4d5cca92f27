import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openEnvironment } from '../../../../../src/adapters/storage/lmdb/lmdb-environment.js';
import {
  lockFileProblem,
  lockHolder,
} from '../../../../../src/adapters/storage/lmdb/lmdb-lock-file.js';

describe('the embedded store (lmdb) lock file', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'plant-store-lmdb-lock-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('when a process holds the write lock, then the lock file names it; when none does, nothing', async () => {
    const dbs = openEnvironment(dataDir);
    try {
      expect(lockHolder(dbs.lockFile)).to.equal(undefined);
      const held = dbs.root.transactionSync(() => lockHolder(dbs.lockFile));
      expect(held).to.deep.include({ pid: process.pid });
      expect(held!.command).to.include(process.execPath);
      expect(lockHolder(dbs.lockFile)).to.equal(undefined);
    } finally {
      await dbs.root.close();
    }
  });

  it("when the lock file is an open store's, then it has no problem; cut short or overwritten, it has one", async () => {
    const dbs = openEnvironment(dataDir);
    await dbs.root.close();
    expect(lockFileProblem(dbs.lockFile)).to.equal(undefined);

    writeFileSync(dbs.lockFile, Buffer.alloc(100, 7));

    expect(lockFileProblem(dbs.lockFile)).to.match(/is not an LMDB lock file/);
  });
});
