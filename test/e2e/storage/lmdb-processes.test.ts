import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect } from 'chai';
import { openLmdbStorage } from '../../../src/adapters/storage/lmdb/open-lmdb-storage.js';

const CHILD = new URL('./support/lmdb-race-child.ts', import.meta.url).pathname;
const WRITER = new URL('./support/lmdb-plant-writer-child.ts', import.meta.url).pathname;
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

  it("when another process writes a tenant's plants, then the next list in this one shows each write at once", async () => {
    const writer = spawn(process.execPath, ['--import', 'tsx', WRITER, dataDir], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    children.push(writer);
    const answers = createInterface({ input: writer.stdout! })[Symbol.asyncIterator]();
    expect((await answers.next()).value).to.equal('ready');
    const write = async (operation: object): Promise<void> => {
      writer.stdin!.write(`${JSON.stringify(operation)}\n`);
      expect((await answers.next()).value).to.equal('done');
    };
    const storage = await openLmdbStorage({ dataDir });
    // Each page read three times, so that this process answers it from its cache (kept at the
    // second miss) before the next write.
    const page = async (after?: bigint) => {
      await storage.plants.list('pages', after, 3);
      await storage.plants.list('pages', after, 3);
      return (await storage.plants.list('pages', after, 3)).map(({ name }) => name);
    };
    try {
      for (let round = 0; round < 20; round++) {
        // The page above every plant written so far, and the first page.
        const after = BigInt(round);
        const id = String(round + 1);
        const first = await page();
        expect(await page(after)).to.deep.equal([]);

        await write({ op: 'insert', id });
        expect(await page(after)).to.deep.equal([`plant ${id}`]);
        if (round < 3) expect(await page()).to.deep.equal([...first, `plant ${id}`]);

        await write({ op: 'import', id, name: `imported ${id}`, overwrite: true });
        expect(await page(after)).to.deep.equal([`imported ${id}`]);

        await write({ op: 'delete', id });
        expect(await page(after)).to.deep.equal([]);
        expect(await page()).to.deep.equal(first);

        await write({ op: 'import', id, name: `kept ${id}` });
        expect(await page(after)).to.deep.equal([`kept ${id}`]);
      }
    } finally {
      writer.stdin!.end();
      await storage.close();
    }
  });
});
