import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  closeSync,
  rmSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { openLmdbStorage } from '../../../src/adapters/storage/lmdb/open-lmdb-storage.js';
// After the store's modules, which point lmdb at the rebuilt addon before it loads.
import { open } from 'lmdb';
import { CLI } from '../../support/service-process.js';

// The real program on damaged, empty and foreign data files and on lock files it cannot use: one
// line naming the file, and an exit, never a signal, never a store served or exported in part.

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const TOKEN = `lmdb-damaged-${randomUUID()}`;
const tokens = JSON.stringify([{ token: TOKEN, tenant: 't', scopes: ['plants:read'] }]);

interface Outcome {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

interface Started {
  /** Resolves once its output holds `pattern`. */
  waitFor(pattern: RegExp): Promise<void>;
  readonly outcome: Promise<Outcome>;
}

/** The CLI (through `prefix`, e.g. setpriv) on `dataDir`, with a server's tokens. */
function start(args: string[], dataDir: string, prefix: string[] = []): Started {
  const [file, ...rest] = [...prefix, process.execPath, '--import', 'tsx', ...CLI, ...args] as [
    string,
    ...string[],
  ];
  const child = spawn(file, rest, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      PORT: '0',
      PLANT_STORE_DATA_DIR: dataDir,
      PLANT_STORE_TOKENS: tokens,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const seen: Array<() => void> = [];
  const read = (into: 'out' | 'err') => (chunk: Buffer) => {
    if (into === 'out') stdout += chunk;
    else stderr += chunk;
    for (const check of seen) check();
  };
  child.stdout.on('data', read('out'));
  child.stderr.on('data', read('err'));
  const outcome = once(child, 'close').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as string | null,
    stdout,
    stderr,
  }));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  void outcome.then(() => clearTimeout(timer));
  return {
    outcome,
    waitFor: (pattern) =>
      new Promise<void>((resolve, reject) => {
        const check = () => pattern.test(stdout + stderr) && resolve();
        seen.push(check);
        check();
        void outcome.then(() => reject(new Error(`ended before ${pattern}: ${stderr}`)));
      }),
  };
}

/** Exit 1 (no signal), and stderr one line starting `plant-store: ` that matches `problem`. */
function expectOneLine({ code, signal, stderr }: Outcome, problem: RegExp): void {
  expect({ code, signal }, stderr).to.deep.equal({ code: 1, signal: null });
  const lines = stderr.trimEnd().split('\n');
  expect(lines, 'one line, no stack').to.have.length(1);
  expect(lines[0])
    .to.match(/^plant-store: /)
    .and.match(problem);
}

/** `serve` and `tokens list` on `dataDir` each refuse it in one line. */
async function expectRefused(dataDir: string, problem: RegExp, prefix?: string[]): Promise<void> {
  for (const args of [['serve'], ['tokens', 'list']]) {
    expectOneLine(await start(args, dataDir, prefix).outcome, problem);
  }
}

describe('the embedded store (lmdb) on damaged, empty, foreign and locked-out files', function () {
  this.timeout(120_000);
  let directory: string;
  let dataDir: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'plant-store-lmdb-damaged-'));
    dataDir = join(directory, 'data');
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  const plantsFile = () => join(dataDir, 'plants.mdb');
  const lockFile = () => `${plantsFile()}-lock`;

  /** A store of 5,000 plants of tenant t, closed. */
  async function filled(): Promise<void> {
    const storage = await openLmdbStorage({ dataDir });
    const plants = Array.from({ length: 5000 }, (_, i) => ({
      id: BigInt(i),
      name: `plant ${i} ${'x'.repeat(30)}`,
    }));
    await storage.plants.importBatch('t', plants, false);
    await storage.close();
  }

  it('when plants.mdb is empty (0 bytes: a restore that did not finish), then serve and a command refuse it in one line naming it, and leave it empty', async () => {
    mkdirSync(dataDir);
    writeFileSync(plantsFile(), '');

    await expectRefused(dataDir, /plants\.mdb \(PLANT_STORE_DATA_DIR\) is empty \(0 bytes\)/);
    expect(statSync(plantsFile()).size).to.equal(0);
  });

  it("when plants.mdb is another program's LMDB file whose one database is named plants, then it is refused in one line and left as it was", async () => {
    const root = open({ path: plantsFile() });
    await root.openDB({ name: 'plants' }).put('theirs', 'data');
    await root.close();
    const before = readFileSync(plantsFile());

    await expectRefused(dataDir, /plants\.mdb .*did not write/);
    expect(readFileSync(plantsFile()).equals(before), 'left as it was').to.equal(true);
  });

  it('when inner pages of plants.mdb are overwritten with random bytes, then check names what is wrong, and export and backup refuse it in one line (exit 1, nothing written)', async () => {
    await filled();
    const pages = statSync(plantsFile()).size / 4096;
    const fd = openSync(plantsFile(), 'r+');
    for (let page = 4; page < pages - 2; page += 7)
      writeSync(fd, randomBytes(4096), 0, 4096, page * 4096);
    closeSync(fd);

    const checked = await start(['check'], dataDir).outcome;
    expect(checked.code, checked.stderr).to.equal(1);
    expect(checked.stderr).to.match(
      /tenant "t" is counted 5000 plants and holds \d+|fails LMDB's checks/,
    );
    const exported = await start(['export'], dataDir).outcome;
    expectOneLine(exported, /the store is damaged: .*run plant-store check/);
    expect(exported.stdout).to.equal('');
    const backup = join(directory, 'copy.mdb');
    expectOneLine(
      await start(['backup', '--output', backup], dataDir).outcome,
      /the store is damaged/,
    );
    expect(existsSync(backup)).to.equal(false);
  });

  it('when the store is whole, then check says so and exits 0', async () => {
    await filled();

    const { code, stderr } = await start(['check'], dataDir).outcome;
    expect(code, stderr).to.equal(0);
    expect(stderr).to.match(/checked: 5000 plants in 1 tenants, nothing wrong/);
  });

  it('when the lock file cannot be written by the service user, then one line names it and why (it ended in SIGSEGV)', async () => {
    await filled();
    // Root writes through any mode: run as another user (setpriv), the directory and data file
    // open to it, the lock file not.
    chmodSync(directory, 0o755);
    chmodSync(dataDir, 0o777);
    chmodSync(plantsFile(), 0o666);
    chmodSync(join(dataDir, 'limits.mdb'), 0o666);
    chmodSync(`${join(dataDir, 'limits.mdb')}-lock`, 0o666);
    chmodSync(lockFile(), 0o644);
    const prefix =
      process.getuid?.() === 0
        ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups']
        : (chmodSync(lockFile(), 0o444), []);

    await expectRefused(
      dataDir,
      /lock file .*plants\.mdb-lock \(PLANT_STORE_DATA_DIR\) cannot be read and written by this user/,
      prefix,
    );
  });

  it('when the lock file holds random bytes, then one line names it (it ended in SIGABRT)', async () => {
    await filled();
    writeFileSync(lockFile(), randomBytes(statSync(lockFile()).size));

    await expectRefused(dataDir, /lock file .*plants\.mdb-lock .*is not an LMDB lock file/);
  });

  for (const [what, damage, problem] of [
    ['cut short', () => truncateSync(lockFile(), 64), /was cut short/],
    ['deleted', () => unlinkSync(lockFile()), /was deleted or replaced/],
  ] as const) {
    it(`when the lock file is ${what} while serving, then the server ends in one line naming it, exit 1, not a signal`, async () => {
      await filled();
      const server = start(['serve'], dataDir);
      await server.waitFor(/listening on/);

      damage();

      const outcome = await server.outcome;
      expect({ code: outcome.code, signal: outcome.signal }, outcome.stderr).to.deep.equal({
        code: 1,
        signal: null,
      });
      expect(outcome.stderr).to.match(
        new RegExp(
          `^plant-store: lock file .*plants\\.mdb-lock \\(PLANT_STORE_DATA_DIR\\) ${problem.source}`,
          'm',
        ),
      );
    });
  }
});
