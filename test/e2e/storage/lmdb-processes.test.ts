import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect } from 'chai';
import { openLmdbStorage } from '../../../src/adapters/storage/lmdb/open-lmdb-storage.js';

const CHILD = new URL('./support/lmdb-race-child.ts', import.meta.url).pathname;
const PROCESSES = 5;
const EACH = 10;

describe('the embedded store (lmdb) shared by several processes on one directory', function () {
  this.timeout(60_000);
  let dataDir: string;
  let children: ChildProcess[] = [];
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'plant-store-lmdb-race-'));
  });
  after(() => {
    // A child that failed would wait for its signal for ever.
    for (const child of children) if (child.exitCode === null) child.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(`when ${PROCESSES} processes insert one id ${EACH} times each at once, then exactly one insert stores it, and the limit holds across them`, async () => {
    children = Array.from({ length: PROCESSES }, () =>
      spawn(process.execPath, ['--import', 'tsx', CHILD, dataDir, String(EACH)], {
        stdio: ['pipe', 'pipe', 'inherit'],
      }),
    );
    const lines = children.map((child) =>
      createInterface({ input: child.stdout! })[Symbol.asyncIterator](),
    );
    // Every child opened the store before any sends: they send within a few ms of each other.
    for (const line of lines) expect((await line.next()).value).to.equal('ready');
    for (const child of children) child.stdin!.write('go\n');
    const results = await Promise.all(
      lines.map(
        async (line) => JSON.parse((await line.next()).value as string) as Record<string, number>,
      ),
    );

    expect(results.reduce((sum, { stored }) => sum + stored!, 0)).to.equal(1);
    // 50 units within one second against a limit of 20 a second, counted in the shared directory.
    expect(results.reduce((sum, { admitted }) => sum + admitted!, 0)).to.equal(20);
    const storage = await openLmdbStorage({ dataDir });
    try {
      expect(await storage.plants.list('race', undefined, 10)).to.have.length(1);
      expect(await storage.plants.tenants(undefined, 10)).to.deep.equal(['race']);
    } finally {
      await storage.close();
    }
  });
});
