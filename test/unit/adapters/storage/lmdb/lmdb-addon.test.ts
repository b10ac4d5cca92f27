import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { expect } from 'chai';
import {
  ADDON_DIR,
  FIX_MARKER,
  lmdbAddonHasOpenFix,
  lmdbAddonPath,
} from '../../../../../src/adapters/storage/lmdb/lmdb-addon.js';
import { openLmdbStorage } from '../../../../../src/adapters/storage/lmdb/open-lmdb-storage.js';

const lmdbDir = dirname(dirname(createRequire(import.meta.url).resolve('lmdb')));
const lmdbVersion = (
  JSON.parse(readFileSync(join(lmdbDir, 'package.json'), 'utf8')) as {
    version: string;
  }
).version;

/** Every file under `dir`, by path relative to it, with its SHA-256; `skip` names left out. */
function hashes(dir: string, skip: string[] = []): Map<string, string> {
  const files = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .filter((path) => !skip.some((name) => path === name || path.startsWith(`${name}/`)));
  return new Map(
    files.map((path) => [
      path,
      createHash('sha256')
        .update(readFileSync(join(dir, path)))
        .digest('hex'),
    ]),
  );
}

describe("lmdb's addon", () => {
  it("when this process loads lmdb, then the addon is the one npm install built with LMDB's fixes into build/lmdb-addon, for the installed lmdb", () => {
    expect(
      lmdbAddonHasOpenFix(),
      `${lmdbAddonPath()} lacks the fixes: npm run build:lmdb`,
    ).to.equal(true);
    expect(lmdbAddonPath().startsWith(`${ADDON_DIR}/prebuilds/`)).to.equal(true);
    const marker = JSON.parse(readFileSync(join(dirname(lmdbAddonPath()), FIX_MARKER), 'utf8')) as {
      lmdb: string;
      fixes: string[];
    };
    expect(marker.lmdb).to.equal(lmdbVersion);
    expect(marker.fixes).to.include('ITS#9496');
  });

  it('when a host loaded lmdb before the store, then the store says the addon is the stock one it took', () => {
    // A process of its own: lmdb loads its addon once per process.
    const said = execFileSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        "await import('lmdb'); const addon = await import('./src/adapters/storage/lmdb/lmdb-addon.ts');" +
          ' console.log(addon.lmdbAddonHasOpenFix(), addon.lmdbAddonPath());',
      ],
      { encoding: 'utf8', env: { PATH: process.env.PATH } },
    );
    expect(said).to.match(/^false .*@lmdb\/lmdb-/);
  });

  it("when npm install has built the addon, then lmdb's directory holds its tarball's files, unchanged, and nothing more", function () {
    this.timeout(60_000);
    const unpacked = mkdtempSync(join(tmpdir(), 'plant-store-lmdb-tarball-'));
    try {
      // The tarball npm installed from (its cache; the registry only if the cache lacks it).
      const [packed] = JSON.parse(
        execFileSync(
          'npm',
          [
            'pack',
            `lmdb@${lmdbVersion}`,
            '--prefer-offline',
            '--json',
            '--pack-destination',
            unpacked,
          ],
          { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
        ),
      ) as [{ filename: string }];
      execFileSync('tar', ['-xzf', join(unpacked, packed.filename), '-C', unpacked]);
      const shipped = hashes(join(unpacked, 'package'));
      // node_modules/: the dependencies npm nested there, not files of lmdb's.
      const installed = hashes(lmdbDir, ['node_modules']);
      expect(shipped.size).to.be.above(50);
      expect(Object.fromEntries(installed)).to.deep.equal(Object.fromEntries(shipped));
    } finally {
      rmSync(unpacked, { recursive: true, force: true });
    }
  });

  it("when code other than lmdb's write.js calls console.error, then its line is printed (only lmdb's failed commits are dropped)", () => {
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = (chunk: string | Uint8Array) => written.push(String(chunk)) > 0;
    try {
      console.error('a host line');
    } finally {
      process.stderr.write = write;
    }
    expect(written).to.deep.equal(['a host line\n']);
  });

  it('when the store opens on the addon with the fixes, then it tells the operator nothing', async () => {
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
