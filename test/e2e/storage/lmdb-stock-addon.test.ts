import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { STOCK_ADDON_SETTING } from '../../../src/adapters/storage/lmdb/lmdb-addon.js';
import { CLI, runProgram, startService } from '../../support/service-process.js';

// lmdb's own directory holds no addon (it never builds there): its loader, pointed at it, takes the
// stock one from lmdb's platform package, as when the install could not build.
const lmdbDir = dirname(dirname(createRequire(import.meta.url).resolve('lmdb')));
const STOCK = { LMDB_PREBUILD: lmdbDir };
const WARNING = /lmdb's addon is the stock build, without LMDB's fix ITS#9496/;
const TOKENS = JSON.stringify([
  { token: 'stock-addon-token-0123456789', tenant: 't', scopes: ['plants:read'] },
]);

describe("the embedded store (lmdb) on lmdb's stock addon", function () {
  this.timeout(120_000);
  let directory: string;

  before(() => {
    directory = mkdtempSync(join(tmpdir(), 'plant-store-stock-addon-'));
  });
  after(() => rmSync(directory, { recursive: true, force: true }));

  it('when the install finds no compiler or make, then it says the first error and what it means on stderr, exits 0 and leaves no addon behind', async () => {
    // This repository's build script and modules, on a PATH without compilers or make.
    const root = join(directory, 'install');
    mkdirSync(join(root, 'scripts'), { recursive: true });
    cpSync('scripts/build-lmdb.mjs', join(root, 'scripts', 'build-lmdb.mjs'));
    symlinkSync(join(process.cwd(), 'node_modules'), join(root, 'node_modules'));
    const bin = join(directory, 'bin');
    mkdirSync(bin);
    const linked = new Set<string>();
    for (const dir of ['/usr/bin', '/bin']) {
      for (const name of readdirSync(dir)) {
        if (
          linked.has(name) ||
          /^(make|gmake|cc|c\+\+|cpp|gcc|g\+\+|clang|x86_64-linux-gnu-)/.test(name)
        )
          continue;
        symlinkSync(join(dir, name), join(bin, name));
        linked.add(name);
      }
    }
    // node-gyp as npm runs install scripts with it (npm_execpath): npm's own.
    const npm = join(execFileSync('npm', ['root', '-g'], { encoding: 'utf8' }).trim(), 'npm');
    const { code, stderr } = await runProgram([join(root, 'scripts', 'build-lmdb.mjs')], {
      PATH: bin,
      npm_execpath: join(npm, 'bin', 'npm-cli.js'),
    });

    expect(code).to.equal(0);
    const lines = stderr.trimEnd().split('\n');
    expect(lines, stderr).to.have.length(2);
    expect(lines[0]).to.match(
      /^plant-store: lmdb's addon was not built with LMDB's fixes: .*(gcc: not found|not found: make)/,
    );
    expect(lines[1]).to.match(
      /one process on a data directory is safe; several at once .* refused/,
    );
    expect(existsSync(join(root, 'build', 'lmdb-addon'))).to.equal(false);
  });

  it('when serve --workers 2 starts on the stock addon, then it refuses in one line naming the setting, after the warning on stderr', async () => {
    const { code, stderr } = await runProgram([...CLI, 'serve', '--workers', '2'], {
      ...STOCK,
      PLANT_STORE_DATA_DIR: join(directory, 'workers'),
      PLANT_STORE_TOKENS: TOKENS,
    });
    expect(code).to.equal(1);
    const lines = stderr.trimEnd().split('\n');
    expect(lines, stderr).to.have.length(2);
    expect(lines[0]).to.match(WARNING);
    expect(lines[1]).to.include('--workers 2 refused').and.include(`${STOCK_ADDON_SETTING}=allow`);
  });

  it('when a server on the stock addon has a directory open, then a command on it is refused naming the server, and runs once the operator allows it', async () => {
    const env = { ...STOCK, PLANT_STORE_DATA_DIR: join(directory, 'shared') };
    const service = await startService({ ...env, PLANT_STORE_TOKENS: TOKENS }, [...CLI, 'serve']);
    try {
      // The warning on stderr (the JSON log line on stdout aside).
      expect(service.output().replace(service.stdout(), '')).to.match(WARNING);
      const refused = await runProgram([...CLI, 'tokens', 'list'], env);
      expect(refused.code).to.equal(1);
      const lines = refused.stderr.trimEnd().split('\n');
      expect(lines.at(-1)).to.include(`plants.mdb is open in process ${service.pid}`);
      expect(lines.at(-1)).to.include(`${STOCK_ADDON_SETTING}=allow`);
      const allowed = await runProgram([...CLI, 'tokens', 'list'], {
        ...env,
        [STOCK_ADDON_SETTING]: 'allow',
      });
      expect(allowed.code, allowed.stderr).to.equal(0);
      expect(allowed.stderr).to.match(WARNING);
    } finally {
      await service.stop();
    }
  });
});
