import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import {
  openEnvironment,
  type LmdbDatabases,
} from '../../../../../src/adapters/storage/lmdb/lmdb-environment.js';
import { LmdbWriter } from '../../../../../src/adapters/storage/lmdb/lmdb-writer.js';
import { isPlantError } from '../../../../../src/domain/errors.js';
import { rejection } from '../../../../support/rejection.js';

type SyncCallback = (error?: unknown) => void;

/** The environment's forced syncs (lmdb-js's `sync`), each held until released. */
interface HeldSyncs {
  /** For each sync, whether every key written before it was committed when it began. */
  readonly began: boolean[][];
  release(error?: Error): void;
}

/**
 * Holds the real environment's syncs: each runs LMDB's sync once released (or fails with the
 * error given), and records which of `keys` were committed (readable) when it was asked for.
 */
function holdSyncs(dbs: LmdbDatabases, keys: () => Buffer[]): HeldSyncs {
  const root = dbs.root as unknown as { sync(callback: SyncCallback): void };
  const real = root.sync.bind(root);
  const waiting: SyncCallback[] = [];
  const began: boolean[][] = [];
  root.sync = (callback) => {
    began.push(keys().map((key) => dbs.plants.get(key) !== undefined));
    waiting.push(callback);
  };
  return {
    began,
    release: (error) => {
      for (const callback of waiting.splice(0)) {
        if (error) callback(error);
        else real(callback);
      }
    },
  };
}

const key = (n: number): Buffer => Buffer.from(`plant-${n}`);

describe('the embedded store (lmdb) writer', () => {
  let directory: string;
  let dbs: LmdbDatabases;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'plant-store-lmdb-writer-'));
    dbs = openEnvironment(directory);
  });
  afterEach(async () => {
    await dbs.root.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('when durable writes commit at once, then none is answered before a forced sync begun after their commit, and they share one', async () => {
    const writer = new LmdbWriter(dbs.root, 'flush', directory);
    const keys = Array.from({ length: 30 }, (_, i) => key(i));
    const held = holdSyncs(dbs, () => keys);
    let answered = 0;
    const writes = keys.map((each) =>
      writer.write(() => dbs.plants.put(each, ['p'])).then(() => answered++),
    );
    while (held.began.length === 0) await sleep(5);
    await sleep(50);

    expect(answered).to.equal(0);
    held.release();
    await Promise.all(writes);
    expect(answered).to.equal(keys.length);
    // lmdb-js commits the 30 in one or two transactions: fewer syncs than writes, each begun
    // once the writes it answers were committed.
    expect(held.began.length).to.be.lessThan(3);
    expect(held.began.at(-1)).to.deep.equal(keys.map(() => true));
  });

  it('when a write commits while a sync is under way, then it waits for a sync of its own', async () => {
    const writer = new LmdbWriter(dbs.root, 'flush', directory);
    const held = holdSyncs(dbs, () => [key(1), key(2)]);
    const first = writer.write(() => dbs.plants.put(key(1), ['p']));
    while (held.began.length === 0) await sleep(5);
    let second = false;
    const later = writer.write(() => dbs.plants.put(key(2), ['p'])).then(() => (second = true));
    while (held.began.length === 1) await sleep(5);

    expect(held.began).to.deep.equal([
      [true, false],
      [true, true],
    ]);
    held.release();
    await Promise.all([first, later]);
    expect(second).to.equal(true);
  });

  it('when the sync fails, then the write is answered storage-unavailable', async () => {
    const writer = new LmdbWriter(dbs.root, 'flush', directory);
    const held = holdSyncs(dbs, () => []);
    const write = writer.write(() => dbs.plants.put(key(1), ['p']));
    while (held.began.length === 0) await sleep(5);
    // As lmdb-js reports a failed mdb_env_sync: LMDB's message, no code.
    held.release(new Error('Input/output error'));

    const error = await rejection(write);
    expect(isPlantError(error) && error.code).to.equal('storage-unavailable');
  });

  it('when a write is commit-only, then it is answered once committed, without a sync', async () => {
    const writer = new LmdbWriter(dbs.root, 'commit-only', directory);
    const held = holdSyncs(dbs, () => []);
    await writer.write(() => dbs.plants.put(key(1), ['p']));

    expect(held.began).to.deep.equal([]);
    expect(dbs.plants.get(key(1))).to.deep.equal(['p']);
  });

  it('when syncs are under way, then drain resolves only once they are done', async () => {
    const writer = new LmdbWriter(dbs.root, 'flush', directory);
    const held = holdSyncs(dbs, () => []);
    const write = writer.write(() => dbs.plants.put(key(1), ['p']));
    while (held.began.length === 0) await sleep(5);
    let drained = false;
    const drain = writer.drain().then(() => (drained = true));
    await sleep(20);

    expect(drained).to.equal(false);
    held.release();
    await Promise.all([write, drain]);
    expect(drained).to.equal(true);
  });
});
