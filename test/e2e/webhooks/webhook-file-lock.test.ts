import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { serverMissing } from '../../support/server-requirement.js';
import { plantStore } from '../../support/token-lifecycle.js';

const ADD = ['webhooks', 'add', '--tenant', 'locks', '--url', 'http://127.0.0.1:9/hook'];

describe('the webhook file lock (memory storage, the CLI as a process)', function () {
  this.timeout(60_000);
  let directory: string;
  let env: Record<string, string>;
  const file = () => join(directory, 'webhooks.json');
  /** Lines `webhooks list` prints: one more for each webhook added. */
  const listed = async () => {
    const listing = await plantStore(['webhooks', 'list', '--tenant', 'locks'], env);
    expect(listing.code, listing.stderr).to.equal(0);
    return listing.stdout.trim().split('\n').filter(Boolean).length;
  };

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'plant-store-webhook-lock-'));
    env = { PLANT_STORE_WEBHOOK_FILE: file(), PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true' };
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  describe('on a full disk (a 64 KiB tmpfs)', () => {
    let mounted = false;
    beforeEach(function () {
      directory = join(directory, 'disk');
      mkdirSync(directory);
      try {
        execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', directory], {
          stdio: 'pipe',
        });
        mounted = true;
      } catch (error) {
        serverMissing(this, 'a small tmpfs', `mount refused: ${(error as Error).message.trim()}`);
      }
      env = { PLANT_STORE_WEBHOOK_FILE: file(), PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true' };
    });
    afterEach(() => {
      if (mounted) execFileSync('umount', [directory]);
      mounted = false;
    });

    it('when `webhooks add` fails with ENOSPC, then no lock is left and once space is back every change succeeds', async () => {
      expect((await plantStore(ADD, env)).code).to.equal(0);
      const before = readFileSync(file(), 'utf8');
      const lines = await listed();
      // Every block taken: creating the lock still works (an inode), writing its pid does not.
      const filler = join(directory, 'filler');
      try {
        writeFileSync(filler, Buffer.alloc(128 * 1024));
      } catch {
        // Full, which is the point.
      }

      const failed = await plantStore(ADD, env);
      expect(failed.code).to.equal(1);
      expect(failed.stderr).to.match(/ENOSPC|no space/i);
      expect(existsSync(`${file()}.lock`), 'the lock left behind').to.equal(false);
      expect(readFileSync(file(), 'utf8')).to.equal(before);

      rmSync(filler);
      const again = await plantStore(ADD, env);
      expect(again.code, again.stderr).to.equal(0);
      expect(await listed()).to.equal(lines + 1);
    });
  });

  it('when an empty lock (its writer killed between the create and the pid) is older than 5 s, then it is taken over', async () => {
    expect((await plantStore(ADD, env)).code).to.equal(0);
    const lines = await listed();
    writeFileSync(`${file()}.lock`, '');
    const old = new Date(Date.now() - 6000);
    utimesSync(`${file()}.lock`, old, old);

    const added = await plantStore(ADD, env);

    expect(added.code, added.stderr).to.equal(0);
    expect(await listed()).to.equal(lines + 1);
    expect(existsSync(`${file()}.lock`)).to.equal(false);
  });

  it('when an empty lock is fresh (a writer between its create and its pid), then a change waits for it and gives up after 2 s', async () => {
    writeFileSync(`${file()}.lock`, '');

    const added = await plantStore(ADD, env);

    expect(added.code).to.equal(1);
    expect(added.stderr).to.match(/stayed locked for 2 s/);
  });
});
