import { link, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openExportOutput, refuseDataDirOutput } from '../../../src/cli/export-output.js';
import { UsageError } from '../../../src/cli/command.js';
import { rejection } from '../../support/rejection.js';

describe('openExportOutput (src/cli/export-output.ts)', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'export-output-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('when --output is absent or -, then the target is stdout', async () => {
    expect((await openExportOutput(undefined)).target).to.deep.equal({ kind: 'stdout' });
    expect((await openExportOutput('-')).target).to.deep.equal({ kind: 'stdout' });
  });

  it('when --output is a directory or empty, then it is refused as a usage error', async () => {
    expect(await rejection(openExportOutput(dir))).to.be.instanceOf(UsageError);
    expect(await rejection(openExportOutput(''))).to.be.instanceOf(UsageError);
  });

  it('when --output is /dev/null, then it is written straight (a stream)', async () => {
    const output = await openExportOutput('/dev/null');
    try {
      expect(output.target).to.deep.equal({ kind: 'stream', path: '/dev/null' });
    } finally {
      await output.close();
    }
  });

  it('when a temporary of a gone process lies beside the file, then it alone is removed', async () => {
    const path = join(dir, 'plants.ndjson');
    // Our parent is alive; our own pid would be taken as a killed run of ours.
    // Pid 2^22 + 1 is above Linux's pid_max: never a live process.
    const stale = `plants.ndjson.4194305.${'a'.repeat(24)}.tmp`;
    const live = `plants.ndjson.${process.ppid}.${'b'.repeat(24)}.tmp`;
    const link = `plants.ndjson.4194305.${'c'.repeat(24)}.tmp`;
    const other = `other.ndjson.4194305.${'d'.repeat(24)}.tmp`;
    for (const name of [stale, live, other]) await writeFile(join(dir, name), 'x');
    await symlink(join(dir, live), join(dir, link));

    const output = await openExportOutput(path);

    expect(output.target).to.deep.equal({ kind: 'file', path });
    expect((await readdir(dir)).sort()).to.deep.equal([live, link, other].sort());
  });
});

describe('refuseDataDirOutput (src/cli/export-output.ts)', () => {
  let dir: string;
  let dataDir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'export-output-data-'));
    dataDir = join(dir, 'data');
    await mkdir(dataDir);
    await writeFile(join(dataDir, 'plants.mdb'), 'store');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('when --output is in the data directory, is it, or is a link to one of its files, then it is refused as a usage error naming the directory', async () => {
    await symlink(join(dataDir, 'plants.mdb'), join(dir, 'soft'));
    await link(join(dataDir, 'plants.mdb'), join(dir, 'hard'));
    await symlink(dataDir, join(dir, 'via'));
    for (const output of [
      join(dataDir, 'plants.mdb'),
      join(dataDir, 'not-yet.ndjson'),
      dataDir,
      join(dir, 'soft'),
      join(dir, 'hard'),
      join(dir, 'via', 'x.ndjson'),
    ]) {
      const error = await rejection(refuseDataDirOutput(output, dataDir));
      expect(error, output).to.be.instanceOf(UsageError);
      expect((error as Error).message).to.include(`the data directory ${dataDir}`);
    }
  });

  it('when --output is beside the data directory, under it in a folder, or stdout, then it is let through', async () => {
    await mkdir(join(dataDir, 'exports'));
    for (const output of [join(dir, 'plants.ndjson'), join(dataDir, 'exports', 'x'), '-']) {
      await refuseDataDirOutput(output, dataDir);
    }
  });
});
