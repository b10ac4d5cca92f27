import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import {
  checkDataFile,
  DATA_FILE,
  lockFileProblem,
  lockHolder,
} from '../../../../../src/adapters/storage/lmdb/lmdb-data-file.js';
import { openEnvironment } from '../../../../../src/adapters/storage/lmdb/lmdb-environment.js';
import { openLmdbStorage } from '../../../../../src/adapters/storage/lmdb/open-lmdb-storage.js';
import { StorageOpenError } from '../../../../../src/adapters/storage/storage-open-error.js';

describe('the embedded store (lmdb) data file check', () => {
  let directory: string;
  let dataDir: string;
  let path: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'plant-store-lmdb-file-'));
    dataDir = join(directory, 'data');
    path = join(dataDir, DATA_FILE);
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  /** A store of a few transactions, closed: its file bytes. */
  async function healthyFile(): Promise<Buffer> {
    const storage = await openLmdbStorage({ dataDir });
    for (let id = 0n; id < 200n; id += 50n) {
      await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          storage.plants.insert('t', { id: id + BigInt(i), name: 'n'.repeat(100) }),
        ),
      );
    }
    await storage.close();
    return readFileSync(path);
  }

  /** The refusal of checking `checked`, naming `file`. */
  const refusal = (file: string, checked = file): StorageOpenError => {
    let caught: unknown;
    try {
      checkDataFile(checked);
    } catch (error) {
      caught = error;
    }
    expect(caught).to.be.instanceOf(StorageOpenError);
    const { message } = caught as Error;
    expect(message).not.to.include('\n');
    expect(message).to.include(file).and.include('PLANT_STORE_DATA_DIR');
    return caught as StorageOpenError;
  };

  it('when the file is absent or a whole store, then it is opened where it is', async () => {
    expect(checkDataFile(path)).to.equal(path);
    await healthyFile();
    expect(checkDataFile(path)).to.equal(realpathSync(path));
  });

  it('when the file is cut inside a page (a copy stopped short), then it is refused as damaged, not mapped (a SIGBUS)', async () => {
    const bytes = await healthyFile();
    writeFileSync(path, bytes.subarray(0, bytes.length - 1000));

    expect(refusal(path).message).to.match(/is damaged \(.*cut short\); move it away/);
  });

  it('when the file is cut at a page boundary below its last transaction, then it is refused as damaged', async () => {
    const bytes = await healthyFile();
    writeFileSync(path, bytes.subarray(0, bytes.length - 4096));

    expect(refusal(path).message).to.match(
      /reach page \d+, and the file holds \d+: the file is cut short/,
    );
  });

  it('when the file holds only part of its first meta page, then it is refused as not LMDB', () => {
    mkdirSync(dataDir);
    writeFileSync(path, Buffer.alloc(10));

    expect(refusal(path).message).to.include('is not an LMDB environment');
  });

  it('when the file is a FIFO or a directory, then it is refused at once (a FIFO would hang the open)', () => {
    mkdirSync(dataDir);
    execFileSync('mkfifo', [path]);
    expect(refusal(path).message).to.include('is a FIFO');
    rmSync(path);
    mkdirSync(path);
    expect(refusal(path).message).to.include('is a directory');
  });

  it("when the file is a link to another directory's store, then the store is opened where the link points, its lock file beside it, where every process finds the same one", async () => {
    await healthyFile();
    const linked = join(directory, 'linked');
    mkdirSync(linked);
    symlinkSync(path, join(linked, DATA_FILE));

    expect(checkDataFile(join(linked, DATA_FILE))).to.equal(realpathSync(path));

    const direct = await openLmdbStorage({ dataDir });
    const throughLink = await openLmdbStorage({ dataDir: linked });
    try {
      await throughLink.plants.insert('t', { id: 1000n, name: 'through the link' });
      expect(await direct.plants.list('t', 999n, 1)).to.deep.equal([
        { id: 1000n, name: 'through the link' },
      ]);
      expect(existsSync(join(linked, `${DATA_FILE}-lock`)), 'no second lock file').to.equal(false);
    } finally {
      await throughLink.close();
      await direct.close();
    }
  });

  it('when the file is a link to nothing, then it is refused, and nothing is made where it points', () => {
    mkdirSync(dataDir);
    const target = join(directory, 'elsewhere.mdb');
    symlinkSync(target, path);

    expect(refusal(path).message).to.include('is a symbolic link to nothing');
    expect(existsSync(target)).to.equal(false);
  });

  it('when its lock file is a FIFO, a directory or a link, then it is refused in one line (a FIFO or a directory ended the process with SIGSEGV)', async () => {
    await healthyFile();
    const lock = `${path}-lock`;
    rmSync(lock);
    execFileSync('mkfifo', [lock]);
    expect(refusal(lock, path).message).to.match(/^lock file .* is a FIFO/);
    rmSync(lock);
    mkdirSync(lock);
    expect(refusal(lock, path).message).to.include('is a directory');
    rmSync(lock, { recursive: true });
    symlinkSync(join(directory, 'other-lock'), lock);
    expect(refusal(lock, path).message).to.include('is a symbolic link');
  });

  it('when the store is checked while it commits, then it is never refused (pages are on disk before the meta page naming them)', async () => {
    await healthyFile();
    const storage = await openLmdbStorage({ dataDir });
    let writing = true;
    const writes = (async () => {
      for (let id = 10_000n; writing; id += 20n) {
        await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            storage.plants.insert('t', { id: id + BigInt(i), name: 'm'.repeat(300) }),
          ),
        );
      }
    })();
    try {
      for (let check = 0; check < 300; check++) {
        checkDataFile(path);
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      writing = false;
      await writes;
      await storage.close();
    }
  });
});

describe('the embedded store (lmdb) lock file', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'plant-store-lmdb-lock-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('when a process holds the write lock, then the lock file names it; when none does, nothing', async () => {
    const dbs = openEnvironment(dataDir);
    try {
      expect(lockHolder(dbs.lockFile)).to.equal(undefined);
      const held = dbs.root.transactionSync(() => lockHolder(dbs.lockFile));
      expect(held).to.deep.include({ pid: process.pid });
      expect(held!.command).to.include(process.execPath);
      expect(lockHolder(dbs.lockFile)).to.equal(undefined);
    } finally {
      await dbs.root.close();
    }
  });

  it("when the lock file is an open store's, then it has no problem; cut short or overwritten, it has one", async () => {
    const dbs = openEnvironment(dataDir);
    await dbs.root.close();
    expect(lockFileProblem(dbs.lockFile)).to.equal(undefined);

    writeFileSync(dbs.lockFile, Buffer.alloc(100, 7));

    expect(lockFileProblem(dbs.lockFile)).to.match(/is not an LMDB lock file/);
  });
});
