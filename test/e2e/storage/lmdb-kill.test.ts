import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect } from 'chai';
import { openLmdbStorage } from '../../../src/adapters/storage/lmdb/open-lmdb-storage.js';
import { isPlantError } from '../../../src/domain/errors.js';
import { newSubscription } from '../../support/webhook-subscription.js';

const CHILD = new URL('./support/lmdb-writer-child.ts', import.meta.url).pathname;
const OPENER = new URL('./support/lmdb-opener-child.ts', import.meta.url).pathname;
const BEFORE_KILL = 500;
/** Commands opening and closing the directory while a process writes (two at a time). */
const OPENINGS = 40;
/** Openings in a row by each of two processes while a process commits without flushing. */
const FAST_OPENINGS = 400;

const run = (script: string, ...args: string[]) =>
  new Promise((resolve) =>
    spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: 'inherit' }).once(
      'exit',
      resolve,
    ),
  );

/** Starts the writer child on `dataDir`; `acknowledged` fills with the ids it acknowledges. */
function startWriter(dataDir: string, args: string[] = []) {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dataDir, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const acknowledged: bigint[] = [];
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const lines = createInterface({ input: child.stdout });
  /** Resolves at the writer's first acknowledged create. */
  const started = once(lines, 'line');
  const read = (async () => {
    for await (const line of lines) acknowledged.push(BigInt(line));
  })();
  /** SIGKILLs the writer; resolves once all it printed is read. */
  const kill = async () => {
    child.kill('SIGKILL');
    await Promise.all([exited, read]);
  };
  return { acknowledged, started, kill };
}

/** Every id in `acknowledged` that the store of `dataDir` does not hold. */
async function lost(dataDir: string, acknowledged: bigint[]): Promise<bigint[]> {
  const storage = await openLmdbStorage({ dataDir, maxPlantsPerTenant: 0 });
  try {
    const held = await storage.plants.list('killed', undefined, 1_000_000);
    const ids = new Set(held.map((plant) => plant.id));
    return acknowledged.filter((id) => !ids.has(id));
  } finally {
    await storage.close();
  }
}

/** The tenant's count is exact: a quota of one more than it holds takes one more plant. */
async function expectCount(dataDir: string, held: number): Promise<void> {
  const counted = await openLmdbStorage({ dataDir, maxPlantsPerTenant: held + 1 });
  try {
    expect(await counted.plants.insert('killed', { id: -1n, name: 'after' })).to.equal(true);
    const refused = await counted.plants.insert('killed', { id: -2n, name: 'x' }).catch((e) => e);
    expect(isPlantError(refused) && refused.code).to.equal('plant-quota-reached');
  } finally {
    await counted.close();
  }
}

describe('the embedded store (lmdb) when its process is killed while it writes', function () {
  this.timeout(60_000);
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'plant-store-lmdb-kill-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it(`when ${OPENINGS} other processes open and close the directory while a process creates, then every acknowledged plant is there`, async function () {
    // 40 processes start through tsx: on two loaded cores that took over a minute (3 runs of 3).
    this.timeout(180_000);
    const shared = mkdtempSync(join(tmpdir(), 'plant-store-lmdb-openers-'));
    try {
      const writer = startWriter(shared);
      for (let i = 0; i < OPENINGS; i += 2)
        await Promise.all([run(OPENER, shared), run(OPENER, shared)]);
      await writer.kill();

      expect(writer.acknowledged.length).to.be.greaterThan(BEFORE_KILL);
      expect(await lost(shared, writer.acknowledged)).to.deep.equal([]);
    } finally {
      rmSync(shared, { recursive: true, force: true });
    }
  });

  it(`when two processes open and close the directory ${FAST_OPENINGS} times each while a process commits without flushing, then no acknowledged plant is lost`, async function () {
    // LMDB's fix ITS#9496 (scripts/build-lmdb.mjs): without it, an opening set the shared last
    // transaction to the meta page it had read before a commit of the writer, whose next commit
    // then overwrote that one. Commits without a flush come ~100 times as often: with lmdb's
    // stock addon, 4 runs in 4 of this lost acknowledged creates or damaged the file.
    this.timeout(120_000);
    const shared = mkdtempSync(join(tmpdir(), 'plant-store-lmdb-fast-openers-'));
    try {
      const writer = startWriter(shared, ['0', 'commit-only']);
      // The openings come while it writes (a slow start could otherwise outlast them).
      await writer.started;
      const opened = ['1', '2'].map(() => run(OPENER, shared, String(FAST_OPENINGS)));
      await Promise.all(opened);
      await writer.kill();

      expect(writer.acknowledged.length).to.be.greaterThan(BEFORE_KILL);
      expect(await lost(shared, writer.acknowledged)).to.deep.equal([]);
    } finally {
      rmSync(shared, { recursive: true, force: true });
    }
  });

  it(`when two processes create at once and both are SIGKILLed after ${BEFORE_KILL} acknowledged creates each, then every plant either acknowledged is there, each with its event, and the count matches the plants`, async () => {
    const shared = mkdtempSync(join(tmpdir(), 'plant-store-lmdb-two-'));
    try {
      const setup = await openLmdbStorage({ dataDir: shared });
      await setup.webhooks!.add(newSubscription('killed'));
      await setup.close();
      // Each its own ids (the second from 10^9), both in one tenant: one count, one outbox.
      const children = ['0', '1000000000'].map((from) =>
        spawn(process.execPath, ['--import', 'tsx', CHILD, shared, from], {
          stdio: ['ignore', 'pipe', 'inherit'],
        }),
      );
      const acknowledged: bigint[] = [];
      let both = 0;
      await Promise.all(
        children.map(async (child) => {
          const exited = new Promise((resolve) => child.once('exit', resolve));
          let own = 0;
          for await (const line of createInterface({ input: child.stdout })) {
            acknowledged.push(BigInt(line));
            // Killed together, once each has had BEFORE_KILL creates acknowledged.
            if (++own === BEFORE_KILL && ++both === children.length) {
              for (const each of children) each.kill('SIGKILL');
            }
          }
          await exited;
        }),
      );

      expect(acknowledged.length).to.be.at.least(2 * BEFORE_KILL);
      expect(await lost(shared, acknowledged)).to.deep.equal([]);
      const storage = await openLmdbStorage({ dataDir: shared, maxPlantsPerTenant: 0 });
      let held: number;
      try {
        held = (await storage.plants.list('killed', undefined, 1_000_000)).length;
        expect(await storage.outbox!.size('killed')).to.equal(held);
      } finally {
        await storage.close();
      }
      await expectCount(shared, held);
    } finally {
      rmSync(shared, { recursive: true, force: true });
    }
  });

  it(`when a process is SIGKILLed after ${BEFORE_KILL} acknowledged creates, then every acknowledged plant is there, each with its event, and the count matches the plants`, async () => {
    const setup = await openLmdbStorage({ dataDir });
    await setup.webhooks!.add(newSubscription('killed'));
    await setup.close();

    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dataDir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const acknowledged: bigint[] = [];
    const exited = new Promise((resolve) => child.once('exit', resolve));
    for await (const line of createInterface({ input: child.stdout })) {
      acknowledged.push(BigInt(line));
      if (acknowledged.length === BEFORE_KILL) child.kill('SIGKILL');
    }
    await exited;

    const storage = await openLmdbStorage({ dataDir, maxPlantsPerTenant: 0 });
    const held = await storage.plants.list('killed', undefined, 100_000);
    try {
      const ids = new Set(held.map((plant) => plant.id));
      expect(acknowledged.filter((id) => !ids.has(id))).to.deep.equal([]);
      // Nothing half-written: each plant stored has its delivery.
      expect(await storage.outbox!.size('killed')).to.equal(held.length);
    } finally {
      await storage.close();
    }
    await expectCount(dataDir, held.length);
  });
});
