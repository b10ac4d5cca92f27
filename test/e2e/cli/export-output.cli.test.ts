import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import {
  lstat,
  mkdir,
  mkdtemp,
  open,
  readdir,
  readFile,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { text } from 'node:stream/consumers';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { plantsKey } from '../../../src/adapters/storage/redis/redis-plant-codec.js';
import { freePort } from '../../support/free-port.js';
import { startRedisServer } from '../../support/redis-server.js';
import { suiteServer } from '../../support/server-requirement.js';
import { bigExport, body, end, file, HEADER } from '../../support/export-text.js';
import { CLI, runProgram, startProgram } from '../../support/service-process.js';

const SMALL = file(
  HEADER,
  '{"tenant":"t","id":1,"name":"one"}',
  '{"tenant":"t","id":2,"name":"two"}',
  end(2),
);
const BIG = 150_000;
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

describe('plant-store export --output and the signals (the CLI as a process): the target keeps its kind', function () {
  this.timeout(120_000);
  const redis = suiteServer('Redis', startRedisServer, (s) => s.close());
  let dir: string;
  let count = 0;
  let work: string;

  const env = (prefix: string) => ({
    PLANT_STORE_STORAGE: 'redis',
    REDIS_URL: redis().url,
    PLANT_STORE_REDIS_PREFIX: prefix,
  });
  const small = () => env('export-output-small:');
  const big = () => env('export-output-big:');
  const cli = (args: string[], environment: Record<string, string>) =>
    runProgram([...CLI, ...args], environment, 90_000);

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plant-export-output-'));
    for (const [prefix, content] of [
      ['export-output-small:', SMALL],
      ['export-output-big:', bigExport('big', BIG)],
    ] as const) {
      const input = join(dir, `${prefix}.ndjson`);
      await writeFile(input, content);
      const imported = await cli(['import', '--input', input], env(prefix));
      expect(imported.code, imported.stderr).to.equal(0);
    }
  });
  after(() => rm(dir, { recursive: true, force: true }));
  beforeEach(async () => {
    // A directory per test: what a test leaves beside its target is all that is in it.
    work = join(dir, `case-${++count}`);
    await mkdir(work);
  });

  it('when --output is a character device made with mknod (a /dev/null twin), then it stays that device and the export is written to it', async () => {
    const device = join(work, 'null');
    execFileSync('mknod', [device, 'c', '1', '3']);
    const before = await lstat(device);

    const { code, stderr } = await cli(['export', '--output', device], small());

    expect(code, stderr).to.equal(0);
    expect(stderr).to.include('exported 2 plants');
    const after = await lstat(device);
    expect(after.isCharacterDevice()).to.equal(true);
    expect([after.ino, after.rdev]).to.deep.equal([before.ino, before.rdev]);
    expect(await readdir(work)).to.deep.equal(['null']);
  });

  it('when --output is a /dev/full twin, then the export reaches the device: it fails with ENOSPC (exit 1), the device kept', async () => {
    const device = join(work, 'full');
    execFileSync('mknod', [device, 'c', '1', '7']);

    const { code, stderr } = await cli(['export', '--output', device], small());

    expect(code).to.equal(1);
    expect(stderr).to.match(/ENOSPC/);
    expect((await lstat(device)).isCharacterDevice()).to.equal(true);
    expect(await readdir(work)).to.deep.equal(['full']);
  });

  it('when --output is a link to /proc/self/fd/1 (as /dev/stdout is), then stdout gets the export and the link stays', async () => {
    const link = join(work, 'stdout');
    await symlink('/proc/self/fd/1', link);

    const { code, stdout, stderr } = await cli(['export', '--output', link], small());

    expect(code, stderr).to.equal(0);
    expect(body(stdout)).to.deep.equal(body(SMALL));
    expect((await lstat(link)).isSymbolicLink()).to.equal(true);
    expect(await readdir(work)).to.deep.equal(['stdout']);
  });

  // The code before this fix replaced /dev/stdout itself (as root): run it only in a throwaway container.
  it('when --output is /dev/stdout, then stdout gets the export and /dev/stdout stays a link', async () => {
    const { code, stdout, stderr } = await cli(['export', '--output', '/dev/stdout'], small());

    expect(code, stderr).to.equal(0);
    expect(body(stdout)).to.deep.equal(body(SMALL));
    expect((await lstat('/dev/stdout')).isSymbolicLink()).to.equal(true);
  });

  it('when --output is /dev/stdout and stdout is a file opened to append, then the export is appended to it', async () => {
    const log = join(work, 'appended.ndjson');
    await writeFile(log, 'before\n');
    const handle = await open(log, 'a');
    try {
      const child = spawn(
        process.execPath,
        ['--import', import.meta.resolve('tsx'), ...CLI, 'export', '--output', '/dev/stdout'],
        {
          cwd: ROOT,
          env: { PATH: process.env.PATH, ...small() },
          stdio: ['ignore', handle.fd, 'pipe'],
        },
      );
      const [stderr, [code]] = await Promise.all([text(child.stderr!), once(child, 'close')]);

      expect(code, stderr).to.equal(0);
    } finally {
      await handle.close();
    }
    const written = await readFile(log, 'utf8');
    expect(written.startsWith('before\n')).to.equal(true);
    expect(body(written.slice('before\n'.length))).to.deep.equal(body(SMALL));
  });

  it('when --output is a link to a regular file, then that file is replaced whole and the link stays', async () => {
    const target = join(work, 'target.ndjson');
    const link = join(work, 'link.ndjson');
    await writeFile(target, 'old content\n');
    await symlink(target, link);

    const { code, stderr } = await cli(['export', '--output', link], small());

    expect(code, stderr).to.equal(0);
    expect((await lstat(link)).isSymbolicLink()).to.equal(true);
    expect(body(await readFile(target, 'utf8'))).to.deep.equal(body(SMALL));
    expect((await readdir(work)).sort()).to.deep.equal(['link.ndjson', 'target.ndjson']);
  });

  it('when --output is -, then stdout gets the export', async () => {
    const { code, stdout, stderr } = await cli(['export', '--output', '-'], small());

    expect(code, stderr).to.equal(0);
    expect(body(stdout)).to.deep.equal(body(SMALL));
  });

  it('when --output is a FIFO, then its reader gets the export and it stays a FIFO', async () => {
    const fifo = join(work, 'fifo');
    execFileSync('mkfifo', [fifo]);

    const running = startProgram([...CLI, 'export', '--output', fifo], small());
    const read = await text(createReadStream(fifo));
    const { code, stderr } = await running.outcome;

    expect(code, stderr).to.equal(0);
    expect(body(read)).to.deep.equal(body(SMALL));
    expect((await lstat(fifo)).isFIFO()).to.equal(true);
    expect(await readdir(work)).to.deep.equal(['fifo']);
  });

  it('when --output is a FIFO nobody reads and SIGTERM comes, then the export ends at once, the FIFO kept', async () => {
    const fifo = join(work, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const running = startProgram([...CLI, 'export', '--output', fifo], small());
    // Long enough for the command to reach the FIFO's open, which waits for a reader.
    await sleep(3000);

    running.kill('SIGTERM');
    const stopped = await running.outcome;

    expect([stopped.code, stopped.signal]).to.deep.equal([null, 'SIGTERM']);
    expect((await lstat(fifo)).isFIFO()).to.equal(true);
  });

  it('when --output is a directory, then it is refused in one line (exit 2) before the store is read', async () => {
    // A store nobody answers at: reading it would fail otherwise, and later.
    const nowhere = { ...small(), REDIS_URL: `redis://127.0.0.1:${await freePort()}` };

    const { code, stdout, stderr } = await cli(['export', '--output', work], nowhere);

    expect(code, stderr).to.equal(2);
    expect(stderr.split('\n')[0]).to.equal(
      `plant-store: --output ${work} is a directory; name a file (or - for stdout)`,
    );
    expect(stderr).not.to.match(/unavailable|EISDIR/);
    expect(stdout).to.equal('');
    expect(await readdir(work)).to.deep.equal([]);
  });

  /** Starts an export of the big store to `output`, resolving once its temporary is there. */
  const exportStarted = async (output: string, planted: string[] = []) => {
    const running = startProgram([...CLI, 'export', '--output', output], big());
    let names: string[] = [];
    while (!names.some((name) => name.endsWith('.tmp') && !planted.includes(name))) {
      await sleep(5);
      names = await readdir(work);
    }
    return running;
  };

  for (const [signal, exit] of [
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const) {
    it(`when an export to a file gets ${signal}, then it exits ${exit} and leaves neither the file nor its temporary`, async () => {
      const output = join(work, 'plants.ndjson');
      const running = await exportStarted(output);

      running.kill(signal);
      const stopped = await running.outcome;

      expect(stopped.code, stopped.stderr).to.equal(exit);
      expect(stopped.stderr).to.include(`export interrupted; ${output} was not written`);
      expect(await readdir(work)).to.deep.equal([]);
    });
  }

  it('when an import gets SIGTERM, then it stops between batches as on Ctrl-C and exits 143', async () => {
    const input = join(dir, 'export-output-big:.ndjson');
    const prefix = `export-output-import-${count}:`;
    const client = new Redis(redis().url);
    try {
      const running = startProgram([...CLI, 'import', '--input', input], env(prefix));
      while ((await client.zcard(plantsKey(prefix, 'big'))) < 5000) await sleep(10);

      running.kill('SIGTERM');
      const stopped = await running.outcome;

      expect(stopped.code, stopped.stderr).to.equal(143);
      expect(stopped.stderr).to.include('import interrupted between batches; rerun it to finish');
      const held = await client.zcard(plantsKey(prefix, 'big'));
      expect(held % 1000).to.equal(0);
      expect(held).to.be.below(BIG);
    } finally {
      client.disconnect();
    }
  });

  it('when an export was killed with SIGKILL, then the next export to the same file removes its temporary, and only its', async () => {
    const output = join(work, 'plants.ndjson');
    // Beside it: a temporary of a live process (this one), a link and a file of another pattern.
    const live = `plants.ndjson.${process.pid}.${'a'.repeat(24)}.tmp`;
    const link = `plants.ndjson.999999999.${'b'.repeat(24)}.tmp`;
    const other = `plants.ndjson.${'c'.repeat(24)}.tmp`;
    await writeFile(join(work, live), 'live');
    await symlink(join(work, live), join(work, link));
    await writeFile(join(work, other), 'other');
    const running = await exportStarted(output, [live, link, other]);
    running.kill('SIGKILL');
    expect((await running.outcome).signal).to.equal('SIGKILL');
    const left = (await readdir(work)).filter((name) => ![live, link, other].includes(name));
    expect(left).to.have.length(1);
    expect(left[0]).to.match(/^plants\.ndjson\.\d+\.[0-9a-f]{24}\.tmp$/);

    const rerun = await cli(['export', '--output', output], big());

    expect(rerun.code, rerun.stderr).to.equal(0);
    expect((await readdir(work)).sort()).to.deep.equal([live, link, other, 'plants.ndjson'].sort());
    const lines = (await readFile(output, 'utf8')).split('\n');
    expect(lines.at(-2)).to.equal(end(BIG));
  });
});
