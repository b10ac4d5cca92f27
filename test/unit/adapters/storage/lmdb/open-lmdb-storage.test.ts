import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { DATA_FILE } from '../../../../../src/adapters/storage/lmdb/lmdb-data-file.js';
import { openLmdbStorage } from '../../../../../src/adapters/storage/lmdb/open-lmdb-storage.js';
import { StorageOpenError } from '../../../../../src/adapters/storage/storage-open-error.js';
// After the store's modules, which point lmdb at the rebuilt addon before it loads.
import { open } from 'lmdb';
import { rejection } from '../../../../support/rejection.js';

describe('the embedded store (lmdb) when it opens', () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'plant-store-lmdb-open-'));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  const refusal = async (dataDir: string): Promise<StorageOpenError> => {
    const error = await rejection(openLmdbStorage({ dataDir }));
    expect(error).to.be.instanceOf(StorageOpenError);
    expect((error as Error).message).not.to.include('\n');
    return error as StorageOpenError;
  };

  it('when the lock file is deleted while a library store has it open, then the error is logged and the host process goes on', async () => {
    const dataDir = join(directory, 'embedded');
    let told: (line: string) => void = () => {};
    const logged = new Promise<string>((resolve) => (told = resolve));
    const logger = {
      debug: () => {},
      info: () => {},
      warn: () => {},
      error: (_fields: object, line: string) => told(line),
    };
    const storage = await openLmdbStorage({ dataDir }, { logger });
    try {
      rmSync(join(dataDir, 'plants.mdb-lock'));

      expect(await logged).to.include('plants.mdb-lock');
    } finally {
      await storage.close();
    }
  });

  it('when the directory is absent, then it is made, and plants written survive a reopening', async () => {
    const dataDir = join(directory, 'a', 'b');
    const first = await openLmdbStorage({ dataDir });
    await first.plants.insert('t', { id: -5n, name: 'kept', tag: 'x' });
    await first.close();

    const again = await openLmdbStorage({ dataDir });
    try {
      expect(await again.plants.list('t', undefined, 10)).to.deep.equal([
        { id: -5n, name: 'kept', tag: 'x' },
      ]);
      expect(await again.plants.tenants(undefined, 10)).to.deep.equal(['t']);
    } finally {
      await again.close();
    }
  });

  it('when the directory cannot be made (a file is in the way), then one line names its path', async () => {
    const blocked = join(directory, 'file');
    writeFileSync(blocked, 'not a directory');

    const error = await refusal(join(blocked, 'data'));

    expect(error.message).to.include(join(blocked, 'data'));
    expect(error.message).to.include('PLANT_STORE_DATA_DIR');
  });

  it('when the data file is a foreign file, then it is refused with its path, and left as it was', async () => {
    const path = join(directory, DATA_FILE);
    writeFileSync(path, 'x'.repeat(8192));

    const error = await refusal(directory);

    expect(error.message).to.include(path).and.to.include('not an LMDB environment');
  });

  it('when the data file is an LMDB environment another program wrote, then it is refused with its path and left as it was', async () => {
    const other = open({ path: join(directory, DATA_FILE) });
    await other.put('someone', 'else');
    await other.close();

    const error = await refusal(directory);

    expect(error.message).to.include(join(directory, DATA_FILE)).and.to.include('did not write');
    const reopened = open({ path: join(directory, DATA_FILE) });
    try {
      expect([...reopened.getKeys()]).to.deep.equal(['someone']);
    } finally {
      await reopened.close();
    }
  });

  it('when the environment holds another format, then it is refused, naming both formats', async () => {
    const other = open({ path: join(directory, DATA_FILE) });
    await other.openDB({ name: 'meta' }).put('format', { store: 'plant-store', format: 99 });
    await other.close();

    const error = await refusal(directory);

    expect(error.message).to.include('format 99').and.to.include('format 1');
  });

  it('when the limits file is foreign, then it is refused with its path', async () => {
    writeFileSync(join(directory, 'limits.mdb'), 'y'.repeat(100));

    const error = await refusal(directory);

    expect(error.message).to.include(join(directory, 'limits.mdb'));
  });

  const modeOf = (path: string): number => statSync(path).mode & 0o777;

  it('when it makes the directory and its files, then only the owner may read them (token digests, webhook secrets)', async () => {
    const dataDir = join(directory, 'made');
    const storage = await openLmdbStorage({ dataDir });
    await storage.close();

    expect(modeOf(dataDir).toString(8)).to.equal('700');
    expect(modeOf(join(dataDir, DATA_FILE)).toString(8)).to.equal('600');
    expect(modeOf(join(dataDir, 'limits.mdb')).toString(8)).to.equal('600');
  });

  it("when it makes the store, then its readers' tables hold a slot for each of 256 workers and hundreds of commands beside them (LMDB's 126 refused the 127th process)", async () => {
    const dataDir = join(directory, 'readers');
    const storage = await openLmdbStorage({ dataDir });
    await storage.close();

    // The lock file: MDB_txninfo (272 bytes, one reader slot in it), then 64 bytes a slot.
    const slots = (file: string) => (statSync(join(dataDir, `${file}-lock`)).size - 272) / 64 + 1;
    expect(slots(DATA_FILE)).to.equal(1024);
    expect(slots('limits.mdb')).to.equal(1024);
  });

  it('when the directory exists with a looser mode, then it is left as the operator made it', async () => {
    const dataDir = join(directory, 'loose');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    const storage = await openLmdbStorage({ dataDir });
    await storage.close();

    expect(modeOf(dataDir).toString(8)).to.equal('755');
    expect(modeOf(join(dataDir, DATA_FILE)).toString(8)).to.equal('600');
  });
});
