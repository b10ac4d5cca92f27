import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { HttpResponse } from '../../support/http-client.js';
import { Api, expectError } from '../../support/http-harness.js';
import { serverMissing } from '../../support/server-requirement.js';

const NAME = 'n'.repeat(250);

describe('the service on the embedded store (lmdb) on a full disk (a 2 MiB tmpfs)', function () {
  this.timeout(60_000);
  let directory: string;
  let mounted = false;
  let api: Api | undefined;
  /** /readyz once it answers `status`, or after 3 s: its answer may be up to 1 s old. */
  const readyz = async (status: number): Promise<HttpResponse> => {
    const deadline = Date.now() + 3000;
    for (;;) {
      const response = await api!.request('GET', '/readyz', { as: null });
      if (response.status === status || Date.now() > deadline) return response;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  before(async function () {
    directory = mkdtempSync(join(tmpdir(), 'plant-store-lmdb-full-http-'));
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', directory], {
        stdio: 'pipe',
      });
      mounted = true;
    } catch (error) {
      return serverMissing(this, 'a small tmpfs', `mount refused: ${(error as Error).message}`);
    }
    api = await Api.start({ kind: 'lmdb', dataDir: join(directory, 'data') });
  });
  after(async () => {
    await api?.close();
    if (mounted) execFileSync('umount', [directory]);
    rmSync(directory, { recursive: true, force: true });
  });

  it('when creates fill the disk, then POST answers 503 50303 (never 500), reads and /readyz go on, and all recover once space is back', async () => {
    const ballast = join(directory, 'ballast');
    writeFileSync(ballast, Buffer.alloc(512 * 1024, 1));
    let refused: HttpResponse | undefined;
    let created = 0;
    for (let id = 1; refused === undefined && id < 20_000; id += 20) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => api!.create(String(id + i), NAME)),
      );
      for (const answer of answers) {
        if (answer.status === 200) created++;
        else refused ??= answer;
      }
    }

    expectError(refused!, 503, 50303);
    expect((await api!.request('GET', '/plants?limit=5')).status).to.equal(200);
    expect((await readyz(503)).status).to.equal(503);

    rmSync(ballast);
    expect((await readyz(200)).status).to.equal(200);
    expect((await api!.create('-1', 'after')).status).to.equal(200);
    expect(created).to.be.above(0);
  });
});
