import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import {
  FIX_MARKER,
  lmdbAddonHasOpenFix,
  lmdbAddonPath,
} from '../../../../../src/adapters/storage/lmdb/lmdb-addon.js';
import { openLmdbStorage } from '../../../../../src/adapters/storage/lmdb/open-lmdb-storage.js';

describe("lmdb's addon", () => {
  it("when this process loads lmdb, then the addon is the one npm install built with LMDB's fix ITS#9496, for the installed lmdb", () => {
    expect(lmdbAddonHasOpenFix(), `${lmdbAddonPath()} lacks the fix: npm run build:lmdb`).to.equal(
      true,
    );
    const marker = JSON.parse(readFileSync(join(dirname(lmdbAddonPath()), FIX_MARKER), 'utf8')) as {
      lmdb: string;
      fix: string;
    };
    const lmdb = JSON.parse(
      readFileSync(join(dirname(dirname(dirname(lmdbAddonPath()))), 'package.json'), 'utf8'),
    ) as { name: string; version: string };
    expect(lmdb.name).to.equal('lmdb');
    expect(marker).to.include({ lmdb: lmdb.version, fix: 'ITS#9496' });
  });

  it('when the store opens on the addon with the fix, then it tells the operator nothing', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'plant-store-lmdb-addon-'));
    const told: string[] = [];
    try {
      const storage = await openLmdbStorage({ dataDir }, { notice: (line) => told.push(line) });
      await storage.close();
      expect(told).to.deep.equal([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
