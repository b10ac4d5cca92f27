import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openLmdbStorage } from '../../../src/adapters/storage/lmdb/open-lmdb-storage.js';
import { isPlantError } from '../../../src/domain/errors.js';
import { serverMissing } from '../../support/server-requirement.js';
import {
  CLI,
  runProgram,
  startProgram,
  startService,
  startWorkers,
} from '../../support/service-process.js';

const DISK = '2m';
const BALLAST = 512 * 1024;

describe('the embedded store (lmdb) on a full disk (a 2 MiB tmpfs)', function () {
  this.timeout(60_000);
  let directory: string;
  let mounted = false;
  let opened: { close(): Promise<void> } | undefined;
  const unhandled: unknown[] = [];
  const note = (reason: unknown) => unhandled.push(reason);

  before(function () {
    directory = mkdtempSync(join(tmpdir(), 'plant-store-lmdb-full-'));
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${DISK}`, 'tmpfs', directory], {
        stdio: 'pipe',
      });
      mounted = true;
    } catch (error) {
      serverMissing(this, 'a small tmpfs', `mount refused: ${(error as Error).message.trim()}`);
    }
    process.on('unhandledRejection', note);
  });
  after(async () => {
    await opened?.close().catch(() => {});
    process.off('unhandledRejection', note);
    if (mounted) execFileSync('umount', [directory]);
    rmSync(directory, { recursive: true, force: true });
  });

  it('when creates fill the disk, then they are refused as storage-refuses-writes, reads go on, nothing answered is lost, and writes work again once space is back', async () => {
    const ballast = join(directory, 'ballast');
    writeFileSync(ballast, Buffer.alloc(BALLAST, 1));
    const dataDir = join(directory, 'data');
    let storage = await openLmdbStorage({ dataDir });
    opened = storage;
    const acknowledged: bigint[] = [];
    let refusal: unknown;
    const name = 'n'.repeat(200);
    for (let id = 0n; refusal === undefined && id < 100_000n; id += 50n) {
      // Fifty at a time: concurrent creates share commits, as under load.
      const batch = Array.from({ length: 50 }, (_, i) => id + BigInt(i));
      const settled = await Promise.allSettled(
        batch.map((each) => storage.plants.insert('full', { id: each, name })),
      );
      settled.forEach((result, i) => {
        if (result.status === 'fulfilled') acknowledged.push(batch[i]!);
        else refusal = result.reason;
      });
    }

    expect(isPlantError(refusal) && refusal.code).to.equal('storage-refuses-writes');
    const page = await storage.plants.list('full', undefined, 5);
    expect(page.map((plant) => plant.id)).to.deep.equal(acknowledged.slice(0, 5));
    expect(isPlantError(await storage.plants.ping().catch((e: unknown) => e))).to.equal(true);

    rmSync(ballast);
    await storage.plants.insert('full', { id: -1n, name: 'after' });
    await storage.plants.ping();
    await storage.close();
    storage = await openLmdbStorage({ dataDir });
    opened = storage;
    try {
      const held = new Set<bigint>();
      let after: bigint | undefined;
      for (;;) {
        const next = await storage.plants.list('full', after, 1000);
        if (next.length === 0) break;
        next.forEach((plant) => held.add(plant.id));
        after = next.at(-1)!.id;
      }
      expect(acknowledged.filter((id) => !held.has(id))).to.deep.equal([]);
      expect(held.has(-1n)).to.equal(true);
    } finally {
      await storage.close();
    }
    expect(unhandled).to.deep.equal([]);
  });

  it('when a store would be made on a full disk, then a command and serve say so in one line and exit 1, not a SIGBUS (LMDB maps its lock file)', async () => {
    const filler = join(directory, 'filler');
    try {
      writeFileSync(filler, Buffer.alloc(4 * 1024 * 1024, 1));
    } catch (error) {
      expect((error as NodeJS.ErrnoException).code).to.equal('ENOSPC');
    }
    try {
      const env = { PLANT_STORE_DATA_DIR: join(directory, 'fresh') };
      const served = startProgram([...CLI, 'serve'], {
        ...env,
        PLANT_STORE_TOKENS: JSON.stringify([
          { token: 'full-disk-token-0123456789', tenant: 't', scopes: ['plants:read'] },
        ]),
      });
      const listed = await runProgram([...CLI, 'tokens', 'list'], env);
      for (const { code, stderr } of [listed, await served.outcome]) {
        expect(code, stderr).to.equal(1);
        const lines = stderr.trimEnd().split('\n');
        expect(lines, 'one line, no stack').to.have.length(1);
        expect(lines[0]).to.match(
          /\.mdb \(PLANT_STORE_DATA_DIR\) cannot be made: its file system has no room left/,
        );
      }
    } finally {
      rmSync(filler, { force: true });
    }
  });

  it('when the disk fills under a serving process, then failed authentications and a tenant rate limit (counted in limits.mdb) are still answered, and the process lives on (one wrong token ended it)', async () => {
    const dataDir = join(directory, 'limited');
    const token = 'full-disk-limited-token-0123456789';
    const service = await startService(
      {
        PLANT_STORE_DATA_DIR: dataDir,
        PLANT_STORE_RATE_LIMIT: '1000',
        PLANT_STORE_AUTH_FAILURE_LIMIT: '1000',
        PLANT_STORE_TOKENS: JSON.stringify([{ token, tenant: 't', scopes: ['plants:read'] }]),
      },
      [...CLI, 'serve'],
    );
    const filler = join(directory, 'filler-under-load');
    try {
      try {
        writeFileSync(filler, Buffer.alloc(4 * 1024 * 1024, 1));
      } catch (error) {
        expect((error as NodeJS.ErrnoException).code).to.equal('ENOSPC');
      }
      const ask = async (bearer: string) => {
        const response = await fetch(`http://127.0.0.1:${service.port}/plants`, {
          headers: { Authorization: `Bearer ${bearer}` },
        });
        await response.arrayBuffer();
        return response.status;
      };
      const statuses: number[] = [];
      // Each with a count of its own to write: new windows, new keys.
      for (let i = 0; i < 10; i++) {
        statuses.push(await ask(`wrong-token-${i}-${'x'.repeat(30)}`));
        statuses.push(await ask(token));
      }
      expect(statuses.filter((_, i) => i % 2 === 0)).to.deep.equal(Array(10).fill(401));
      expect(statuses.filter((_, i) => i % 2 === 1)).to.deep.equal(Array(10).fill(200));
      expect(service.running(), service.output()).to.equal(true);
      expect(service.output()).to.not.include('Commit failed');
    } finally {
      rmSync(filler, { force: true });
      await service.stop();
    }
  });

  it('when several writers fill the disk under serve --workers 2, then no worker dies, stderr has no raw LMDB or stack line, creates answer 503 while full, none answered "nothing was written" is stored, and creates are taken again once space is back', async function () {
    this.timeout(180_000);
    const token = 'full-disk-workers-token-0123456789';
    const env = {
      PLANT_STORE_DATA_DIR: join(directory, 'workers'),
      PLANT_STORE_TOKENS: JSON.stringify([
        { token, tenant: 't', scopes: ['plants:read', 'plants:write'] },
      ]),
    };
    // The disk to itself: the earlier tests' stores (closed by now) removed.
    for (const entry of readdirSync(directory)) rmSync(join(directory, entry), { recursive: true });
    const service = await startWorkers(env);
    const ballast = join(directory, 'workers-ballast');
    // The ids answered "nothing was written" (50303): none of them may be stored afterwards.
    const notWritten: number[] = [];
    const create = async (id: number): Promise<number> => {
      const response = await fetch(`http://127.0.0.1:${service.port}/plants`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ id, name: `${id} ${'n'.repeat(240)}` }),
      });
      const body = (await response.json()) as { error?: number };
      if (body.error === 50303) notWritten.push(id);
      return response.status;
    };
    try {
      writeFileSync(ballast, Buffer.alloc(BALLAST, 1));
      const statuses: number[] = [];
      let next = 1;
      // Eight writers, each until it has been refused a few times: both workers meet the full disk.
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          for (let refused = 0; refused < 5 && next < 50_000;) {
            const status = await create(next++);
            statuses.push(status);
            if (status !== 200) refused++;
          }
        }),
      );
      expect(statuses.filter((status) => status !== 200 && status !== 503)).to.deep.equal([]);
      expect(statuses).to.include(503);
      // A command beside them: refused in one line of its own (unless it finds room in pages LMDB
      // freed, which a small write may).
      const command = await runProgram(
        [...CLI, 'tokens', 'create', '--tenant', 't', '--scope', 'plants:read'],
        env,
      );
      if (command.code !== 0) expect(command.stderr.trimEnd().split('\n')).to.have.length(1);

      rmSync(ballast);
      let after = 0;
      for (let id = 100_000; after !== 200 && id < 100_050; id++) after = await create(id);
      const stored = new Set<number>();
      for (let page = '/plants?limit=1000'; page !== '';) {
        const response = await fetch(`http://127.0.0.1:${service.port}${page}`, {
          headers: { Authorization: `Bearer ${token}` },
        });
        for (const { name } of (await response.json()) as { name: string }[]) {
          stored.add(Number(name.split(' ')[0]));
        }
        page = /<([^>]+)>/.exec(response.headers.get('link') ?? '')?.[1] ?? '';
      }
      expect(notWritten).not.to.deep.equal([]);
      expect(notWritten.filter((id) => stored.has(id))).to.deep.equal([]);
      expect(after).to.equal(200);
      expect(service.running()).to.equal(true);
      const output = service.output();
      expect(output, 'a worker died').to.not.include('worker exited');
      expect(output).to.not.match(/Write error|^\s+at /m);
      expect(command.stderr).to.not.match(/Write error|^\s+at /m);
    } finally {
      rmSync(ballast, { force: true });
      await service.stop();
    }
  });
});
