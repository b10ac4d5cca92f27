import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { openLmdbStorage } from '../../../src/adapters/storage/lmdb/open-lmdb-storage.js';
// After the store's modules, which point lmdb at the rebuilt addon before it loads.
import { open } from 'lmdb';
import {
  CLI,
  runProgram,
  startProgram,
  startService,
  startWorkers,
  type ServiceProcess,
} from '../../support/service-process.js';

// The real program on the default storage (lmdb, PLANT_STORE_DATA_DIR): what survives a SIGKILL,
// what workers share, what a command beside a server changes in it, what an unusable directory says.

const TOKEN = `lmdb-program-${randomUUID()}`;
const TENANT = 'durable';
const tokens = JSON.stringify([
  { token: TOKEN, tenant: TENANT, scopes: ['plants:read', 'plants:write'] },
]);
const nameOf = (id: number): string => `plant ${id} ${'x'.repeat(Math.abs(id) % 50)}`;

/** POST /plants; resolves the status, or 0 when the connection failed (the process died). */
async function create(port: number, id: number, token = TOKEN): Promise<number> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/plants`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ id, name: nameOf(id), tag: `t${id}` }),
    });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

/** DELETE /plants/:id; resolves the status. */
async function deletePlant(port: number, id: number): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}/plants/${id}`, {
    method: 'DELETE',
    headers: { Authorization: `Bearer ${TOKEN}` },
  });
  await response.arrayBuffer();
  return response.status;
}

/**
 * `concurrency` loops creating distinct ids until `stop` resolves; resolves the ids answered 200
 * and every id sent (`into`, which the caller may read as they grow). Ids start at `first` and go
 * up across the loops.
 */
async function load(
  port: () => number,
  concurrency: number,
  stop: Promise<unknown>,
  first = 1,
  into = { acknowledged: new Set<number>(), sent: new Set<number>() },
): Promise<{ acknowledged: Set<number>; sent: Set<number> }> {
  let next = first;
  let stopped = false;
  void stop.then(() => (stopped = true));
  const { acknowledged, sent } = into;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (!stopped) {
        const id = next++;
        sent.add(id);
        const status = await create(port(), id);
        if (status === 200) acknowledged.add(id);
        else if (status === 0) await sleep(20);
      }
    }),
  );
  return { acknowledged, sent };
}

/** Every plant of the data directory, by `plant-store export` (no server needed). */
async function exported(
  dataDir: string,
): Promise<Map<number, { name: string; tag?: string; line: string }>> {
  const { code, stdout, stderr } = await runProgram([...CLI, 'export'], {
    PLANT_STORE_DATA_DIR: dataDir,
  });
  expect(code, stderr).to.equal(0);
  const plants = new Map<number, { name: string; tag?: string; line: string }>();
  const lines = stdout.trim().split('\n');
  for (const line of lines.slice(1, -1)) {
    const plant = JSON.parse(line) as { tenant: string; id: number; name: string; tag?: string };
    plants.set(Number(plant.id), { name: plant.name, ...(plant.tag && { tag: plant.tag }), line });
  }
  expect(JSON.parse(lines.at(-1)!)).to.deep.include({ plants: plants.size });
  return plants;
}

/** Every acknowledged plant is there whole, and every plant there was sent, whole. */
function expectDurable(
  plants: Map<number, { name: string; tag?: string }>,
  { acknowledged, sent }: { acknowledged: Set<number>; sent: Set<number> },
): void {
  const missing = [...acknowledged].filter((id) => !plants.has(id));
  expect(missing, 'acknowledged plants missing after the restart').to.deep.equal([]);
  for (const [id, { name, tag }] of plants) {
    expect(sent.has(id), `plant ${id} was never sent`).to.equal(true);
    expect({ name, tag }).to.deep.equal({ name: nameOf(id), tag: `t${id}` });
  }
}

/** The pids of the process's children (a cluster's workers). */
function children(pid: number): number[] {
  let text = '';
  try {
    text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  } catch {
    // gone already
  }
  return text === '' ? [] : text.split(/\s+/).map(Number);
}

/** The resident set of a process, in MiB. */
function residentMiB(pid: number): number {
  const kib = /VmRSS:\s*(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]!;
  return Number(kib) / 1024;
}

/** The processes whose environment names `dataDir`, once none is left or after `withinMs`. */
async function survivors(dataDir: string, withinMs: number): Promise<number[]> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const pids = readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`=${dataDir}\0`);
        } catch {
          return false; // gone, or not ours to read
        }
      })
      .map(Number);
    if (pids.length === 0 || Date.now() > deadline) return pids;
    await sleep(100);
  }
}

describe('The default storage (lmdb) under the real program', function () {
  this.timeout(90_000);
  let directory: string;
  let dataDir: string;
  let service: ServiceProcess | undefined;

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'plant-store-lmdb-program-'));
    dataDir = join(directory, 'data');
  });
  afterEach(async () => {
    await service?.kill();
    service = undefined;
    rmSync(directory, { recursive: true, force: true });
  });

  const serve = (env: Record<string, string> = {}) =>
    startService({ PLANT_STORE_DATA_DIR: dataDir, PLANT_STORE_TOKENS: tokens, ...env }, [
      ...CLI,
      'serve',
    ]);
  const serveWorkers = () =>
    startWorkers({ PLANT_STORE_DATA_DIR: dataDir, PLANT_STORE_TOKENS: tokens });

  it('when creates under concurrent load are cut by a SIGKILL, then after a restart every acknowledged plant is there whole, and nothing never sent', async () => {
    service = await serve();
    const running = service;
    const work = load(
      () => running.port,
      16,
      sleep(1500).then(() => running.kill()),
    );
    const outcome = await work;
    expect(outcome.acknowledged.size).to.be.greaterThan(20);

    service = await serve();
    expect(service.output()).to.include(`(storage: lmdb, data: ${dataDir})`);
    await service.stop();
    service = undefined;
    expectDurable(await exported(dataDir), outcome);
  });

  it('when serve --workers 2 loses a worker and then its primary to SIGKILL under load, then every worker ends with its primary and every acknowledged plant is there whole after a restart', async () => {
    service = await serveWorkers();
    const running = service;
    expect(running.output()).to.match(/\(storage: lmdb, data: .*, workers: 2\)/);
    const workers = children(running.pid);
    expect(workers).to.have.length(2);
    let outlived: number[] = [];
    const stop = (async () => {
      await sleep(800);
      process.kill(workers[0]!, 'SIGKILL');
      // Past the replacement's fork (1 s after the exit): a worker starting is killed with it.
      await sleep(2200);
      process.kill(running.pid, 'SIGKILL');
      // The bound docs/operations.md promises (workers end within about 2 s).
      outlived = await survivors(dataDir, 2_000);
      for (const pid of outlived) process.kill(pid, 'SIGKILL');
      await running.kill();
    })();
    const outcome = await load(() => running.port, 16, stop);
    expect(outlived, 'workers still running 2 s after their primary was killed').to.deep.equal([]);
    expect(outcome.acknowledged.size).to.be.greaterThan(20);

    expectDurable(await exported(dataDir), outcome);
  });

  it('when 50 creates of one id race across two workers, then exactly one is answered 200 and the others 409', async () => {
    service = await serveWorkers();
    const { port } = service;

    const statuses = await Promise.all(Array.from({ length: 50 }, () => create(port, 4242)));

    expect(statuses.filter((status) => status === 200)).to.have.length(1);
    expect(statuses.filter((status) => status === 409)).to.have.length(49);
  });

  it('when two separate serve processes share one directory, then each lists what the other created, and 20 creates of one id across both have one winner', async () => {
    service = await serve();
    const other = await serve();
    try {
      expect(await create(service.port, 1)).to.equal(200);
      const listed = await fetch(`http://127.0.0.1:${other.port}/plants`, {
        headers: { Authorization: `Bearer ${TOKEN}` },
      });
      expect(await listed.json()).to.deep.equal([{ name: nameOf(1), tag: 't1' }]);

      const statuses = await Promise.all(
        Array.from({ length: 20 }, (_, i) => create((i % 2 ? other : service!).port, 77)),
      );

      expect(statuses.filter((status) => status === 200)).to.have.length(1);
      expect(statuses.filter((status) => status === 409)).to.have.length(19);
    } finally {
      await other.stop();
    }
  });

  it('when `plant-store tokens revoke` runs beside a serving process, then the process refuses the token within its cache bound', async () => {
    service = await serve({ PLANT_STORE_TOKEN_CACHE_SECONDS: '1' });
    const issued = await runProgram(
      [...CLI, 'tokens', 'create', '--tenant', TENANT, '--scope', 'plants:write'],
      { PLANT_STORE_DATA_DIR: dataDir },
    );
    expect(issued.code, issued.stderr).to.equal(0);
    const managed = issued.stdout.trim();
    expect(await create(service.port, 1, managed)).to.equal(200);

    const revoked = await runProgram([...CLI, 'tokens', 'revoke', managed], {
      PLANT_STORE_DATA_DIR: dataDir,
    });
    expect(revoked.code, revoked.stderr).to.equal(0);
    const since = Date.now();
    let id = 2;
    while ((await create(service.port, id++, managed)) !== 401) {
      expect(Date.now() - since, 'still accepted after the cache bound').to.be.below(3000);
      await sleep(100);
    }
  });

  it('when exports run while one writer creates and deletes at both ends of a large tenant, then each is the state after some prefix of the writes, and a quiesced export after them is the state after all', async () => {
    service = await serve();
    const running = service;
    // 30,000 plants (30 pages of an export) between the writer's two ends, taken in by `import`.
    const prefill = Array.from({ length: 30_000 }, (_, i) => i + 1);
    const input = join(directory, 'prefill.ndjson');
    writeFileSync(
      input,
      [
        '{"format":"plant-store-export","version":1,"takenAt":"2026-01-01T00:00:00.000Z","tenants":null}',
        ...prefill.map((id) =>
          JSON.stringify({ tenant: TENANT, id, name: nameOf(id), tag: `t${id}` }),
        ),
        `{"format":"plant-store-export","end":true,"plants":${prefill.length}}`,
        '',
      ].join('\n'),
    );
    const imported = await runProgram([...CLI, 'import', '--input', input], {
      PLANT_STORE_DATA_DIR: dataDir,
    });
    expect(imported.code, imported.stderr).to.equal(0);

    // One writer, each write acknowledged before the next: the history is this order. Step k
    // creates -k (first page), then 1,000,000 + k (last page), then deletes -(k - 1). An export
    // reading its first page before step k and its last page after it would hold 1,000,000 + k
    // without -k: the state after no prefix.
    const history: { id: number; create: boolean }[] = [];
    let stopped = false;
    const write = async (id: number, creates: boolean): Promise<void> => {
      history.push({ id, create: creates });
      const status = creates ? await create(running.port, id) : await deletePlant(running.port, id);
      expect(
        status,
        `${creates ? 'create' : 'delete'} ${id}: ${running.output().slice(-2000)}`,
      ).to.equal(creates ? 200 : 204);
    };
    const writer = (async () => {
      for (let k = 1; !stopped; k++) {
        await write(-k, true);
        await write(1_000_000 + k, true);
        if (k > 1) await write(-(k - 1), false);
      }
    })();
    // Its failure is reported where it is awaited, below.
    writer.catch(() => {});
    const exports: Map<number, { name: string; tag?: string; line: string }>[] = [];
    try {
      await sleep(300);
      for (let i = 0; i < 3; i++) exports.push(await exported(dataDir));
    } finally {
      stopped = true;
      await writer;
    }
    await running.stop();
    service = undefined;
    const quiesced = await exported(dataDir);

    // The state after each prefix of the history, as the number of ids on which it differs from
    // the export: a prefix the export equals leaves none.
    const equalsSomePrefix = (plants: Map<number, unknown>): number | undefined => {
      const state = new Set(prefill);
      let differing = [...plants.keys()].filter((id) => !state.has(id)).length;
      differing += prefill.filter((id) => !plants.has(id)).length;
      if (differing === 0) return 0;
      for (const [step, { id, create }] of history.entries()) {
        const listed = plants.has(id);
        if (create) state.add(id);
        else state.delete(id);
        differing += listed === create ? -1 : 1;
        if (differing === 0) return step + 1;
      }
      return undefined;
    };
    expect(history.length, 'writes during the exports').to.be.greaterThan(30);
    const prefixes = exports.map(equalsSomePrefix);
    expect(prefixes, 'each export is the state after a prefix of the writes').not.to.include(
      undefined,
    );
    expect(equalsSomePrefix(quiesced)).to.equal(history.length);
    for (const plants of [...exports, quiesced]) {
      for (const [id, { name, tag }] of plants) {
        expect({ name, tag }).to.deep.equal({ name: nameOf(id), tag: `t${id}` });
      }
    }
  });

  it('when `plant-store backup` runs while creates go on, then the copy opens as a data directory holding every plant acknowledged before it began, each whole', async () => {
    service = await serve();
    const running = service;
    let stop!: () => void;
    const live = { acknowledged: new Set<number>(), sent: new Set<number>() };
    const writing = load(
      () => running.port,
      8,
      new Promise<void>((done) => (stop = done)),
      1,
      live,
    );
    const backups = join(directory, 'backups');
    mkdirSync(backups);
    let before: Set<number>;
    try {
      await sleep(800);
      before = new Set(live.acknowledged);
      const backup = await runProgram([...CLI, 'backup', '--output', backups], {
        PLANT_STORE_DATA_DIR: dataDir,
      });
      expect(backup.code, backup.stderr).to.equal(0);
      expect(backup.stderr).to.match(/backed up the store to .*plants\.mdb/);
    } finally {
      stop();
    }
    const written = await writing;
    expect(before.size, 'plants acknowledged before the backup').to.be.greaterThan(0);

    const copy = join(backups, 'plants.mdb');
    expect(statSync(copy).mode & 0o777).to.equal(0o600);
    const restored = await exported(backups);
    expectDurable(restored, { acknowledged: before, sent: written.sent });
  });

  it('when export or backup --output names a file of the data directory (or a link to one), then one line and exit 2, and the store is left as it was (an export replaced plants.mdb with NDJSON, exit 0)', async () => {
    const made = await runProgram(
      [...CLI, 'tokens', 'create', '--tenant', 'kept', '--scope', 'plants:read'],
      {
        PLANT_STORE_DATA_DIR: dataDir,
      },
    );
    expect(made.code, made.stderr).to.equal(0);
    const before = readFileSync(join(dataDir, 'plants.mdb'));
    symlinkSync(join(dataDir, 'plants.mdb'), join(directory, 'soft.mdb'));
    linkSync(join(dataDir, 'plants.mdb'), join(directory, 'hard.mdb'));
    const targets = [
      ['export', join(dataDir, 'plants.mdb')],
      ['export', join(dataDir, 'plants.mdb-lock')],
      ['export', join(dataDir, 'limits.mdb')],
      ['export', join(dataDir, 'new.ndjson')],
      ['export', join(directory, 'soft.mdb')],
      ['export', join(directory, 'hard.mdb')],
      ['backup', join(dataDir, 'copy.mdb')],
      ['backup', dataDir],
    ];
    for (const [command, output] of targets) {
      const { code, stderr } = await runProgram([...CLI, command!, '--output', output!], {
        PLANT_STORE_DATA_DIR: dataDir,
      });
      expect(code, `${command} ${output}: ${stderr}`).to.equal(2);
      expect(stderr.split('\n')[0]).to.match(
        /the data directory .* \(PLANT_STORE_DATA_DIR\), which holds the store itself/,
      );
    }
    expect(readFileSync(join(dataDir, 'plants.mdb')).equals(before)).to.equal(true);
    expect(readdirSync(dataDir).sort()).to.deep.equal([
      'limits.mdb',
      'limits.mdb-lock',
      'plants.mdb',
      'plants.mdb-lock',
    ]);
    const listed = await runProgram([...CLI, 'tokens', 'list'], { PLANT_STORE_DATA_DIR: dataDir });
    expect(listed.stdout).to.include('kept');
  });

  it('when `plant-store backup --output -` is asked, then one line says a backup is a file, exit 2, and no file named - is made', async () => {
    // The programs run in the repository's root.
    const made = fileURLToPath(new URL('../../../-', import.meta.url));
    try {
      const { code, stderr } = await runProgram([...CLI, 'backup', '--output', '-'], {
        PLANT_STORE_DATA_DIR: dataDir,
      });
      expect(code, stderr).to.equal(2);
      expect(stderr.split('\n')[0]).to.match(/--output - \(stdout\) cannot take a backup/);
      expect(existsSync(made), 'a file named -').to.equal(false);
    } finally {
      rmSync(made, { force: true });
    }
  });

  it('when `plant-store backup --output` names a file that exists (or a directory holding plants.mdb), then one line, exit 2, and the file is left as it was', async () => {
    const made = await runProgram(
      [...CLI, 'tokens', 'create', '--tenant', 't', '--scope', 'plants:read'],
      {
        PLANT_STORE_DATA_DIR: dataDir,
      },
    );
    expect(made.code, made.stderr).to.equal(0);
    const backups = join(directory, 'backups');
    mkdirSync(backups);
    writeFileSync(join(directory, 'taken.mdb'), 'an earlier backup');
    writeFileSync(join(backups, 'plants.mdb'), 'an earlier backup');
    for (const [output, file] of [
      [join(directory, 'taken.mdb'), join(directory, 'taken.mdb')],
      [backups, join(backups, 'plants.mdb')],
    ] as const) {
      const { code, stderr } = await runProgram([...CLI, 'backup', '--output', output], {
        PLANT_STORE_DATA_DIR: dataDir,
      });
      expect(code, stderr).to.equal(2);
      expect(stderr.split('\n')[0]).to.equal(
        `plant-store: ${file} exists; a backup writes a new file`,
      );
      expect(readFileSync(file, 'utf8')).to.equal('an earlier backup');
    }
    expect(readdirSync(backups)).to.deep.equal(['plants.mdb']);
  });

  it('when `plant-store backup` is asked of Redis or MongoDB, then one line names their own tools, exit 1', async () => {
    for (const [storage, tool] of [
      ['redis', /redis-cli --rdb/],
      ['mongodb', /mongodump/],
    ] as const) {
      const { code, stderr } = await runProgram(
        [...CLI, 'backup', '--output', join(directory, 'x')],
        { PLANT_STORE_STORAGE: storage },
      );
      expect(code, stderr).to.equal(1);
      expect(stderr.trimEnd().split('\n')).to.have.length(1);
      expect(stderr).to.match(tool);
    }
  });

  it('when `npm start` with no token restarts on its directory, then its plants and its development token are still there', async () => {
    const first = await startService({ PLANT_STORE_DATA_DIR: dataDir });
    service = first;
    const [, token] = await first.waitFor(/export TOKEN=(pst_\S+)/);
    expect(await create(first.port, 7, token)).to.equal(200);
    await first.kill();

    service = await startService({ PLANT_STORE_DATA_DIR: dataDir });
    expect(service.output()).to.not.include(token!);
    expect(service.output()).to.include('the development token (id 0000000000000000)');
    expect(await create(service.port, 7, token)).to.equal(409);
  });

  it('when a store holds a million plants, then serve starts with the resident memory of an empty store and lists a page at once', async function () {
    // Seeding a million plants took 1.6 s on a quiet machine; each start ~1-5 s (tsx), more at load.
    this.timeout(240_000);
    const PLANTS = 1_000_000;
    const seeding = await openLmdbStorage({
      dataDir,
      maxPlantsPerTenant: 0,
      durability: 'commit-only',
    });
    try {
      for (let from = 0; from < PLANTS; from += 2000) {
        const batch = Array.from({ length: 2000 }, (_, i) => ({
          id: BigInt(from + i + 1),
          name: nameOf(from + i + 1),
          tag: `t${from + i + 1}`,
        }));
        await seeding.plants.importBatch(TENANT, batch, false);
      }
      expect(await seeding.plants.list(TENANT, BigInt(PLANTS - 10), 20)).to.have.length(10);
    } finally {
      await seeding.close();
    }
    const emptyDir = join(directory, 'empty');
    const started = async (dir: string) => {
      const since = performance.now();
      service = await startService({ PLANT_STORE_DATA_DIR: dir, PLANT_STORE_TOKENS: tokens }, [
        ...CLI,
        'serve',
      ]);
      const ms = performance.now() - since;
      const rssMiB = residentMiB(service.pid);
      return { ms, rssMiB };
    };

    const empty = await started(emptyDir);
    await service!.stop();
    const full = await started(dataDir);
    const page = await fetch(`http://127.0.0.1:${service!.port}/plants?limit=20`, {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    console.log(
      `      start-up, empty store: ${empty.ms.toFixed(0)} ms, ${empty.rssMiB.toFixed(1)} MiB resident; ${PLANTS} plants: ${full.ms.toFixed(0)} ms, ${full.rssMiB.toFixed(1)} MiB`,
    );

    expect(page.status).to.equal(200);
    expect(((await page.json()) as unknown[]).length).to.equal(20);
    // A million plants loaded into the heap would be hundreds of MiB; the file is ~60 MB.
    expect(full.rssMiB - empty.rssMiB, 'resident MiB over an empty store').to.be.below(25);
  });

  it('when a store that `npm start` gave a development token is later served with PLANT_STORE_TOKENS, then the start says the token still works, until it is revoked', async () => {
    const first = await startService({ PLANT_STORE_DATA_DIR: dataDir });
    service = first;
    const [, token] = await first.waitFor(/export TOKEN=(pst_\S+)/);
    await first.kill();

    service = await serve();
    expect(service.output()).to.include(
      'the development token (id 0000000000000000) issued at a start without tokens configured still works',
    );
    expect(await create(service.port, 8, token)).to.equal(200);
    await service.kill();

    const revoked = await runProgram([...CLI, 'tokens', 'revoke', '0000000000000000'], {
      PLANT_STORE_DATA_DIR: dataDir,
    });
    expect(revoked.code, revoked.stderr).to.equal(0);
    service = await serve();
    expect(service.output()).to.not.include('development token');
  });

  it('when JWTs are configured and no static token, then no development token is issued, printed or stored', async () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    service = await startService({
      PLANT_STORE_DATA_DIR: dataDir,
      PLANT_STORE_JWT_ISSUER: 'https://issuer.example/',
      PLANT_STORE_JWT_AUDIENCE: 'plant-store',
      PLANT_STORE_JWT_PUBLIC_KEY: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    });
    expect(service.output()).to.not.include('TOKEN=').and.not.include('development token');
    await service.kill();

    const listed = await runProgram([...CLI, 'tokens', 'list'], { PLANT_STORE_DATA_DIR: dataDir });
    expect(listed.stdout).to.not.include('0000000000000000');
  });
});

describe('An unusable data directory under the real program', function () {
  this.timeout(60_000);
  let directory: string;

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'plant-store-lmdb-unusable-'));
  });
  afterEach(() => {
    chmodSync(directory, 0o700);
    rmSync(directory, { recursive: true, force: true });
  });

  /** `serve` and a command on it: each exits 1 with one line on stderr naming the path. */
  async function expectRefused(dataDir: string, problem: RegExp): Promise<void> {
    const served = startProgram([...CLI, 'serve'], {
      PLANT_STORE_DATA_DIR: dataDir,
      PLANT_STORE_TOKENS: tokens,
    });
    const listed = runProgram([...CLI, 'tokens', 'list'], { PLANT_STORE_DATA_DIR: dataDir });
    const [serveOutcome, listOutcome] = await Promise.all([served.outcome, listed]);
    for (const { code, stderr } of [serveOutcome, listOutcome]) {
      expect(code, stderr).to.equal(1);
      const lines = stderr.trimEnd().split('\n');
      expect(lines, 'one line, no stack').to.have.length(1);
      expect(lines[0])
        .to.match(/^plant-store: /)
        .and.match(problem);
    }
  }

  it('when the directory would be under a regular file, then it cannot be made: one line and exit 1', async () => {
    const file = join(directory, 'plain-file');
    writeFileSync(file, '');

    await expectRefused(
      join(file, 'data'),
      /data directory .*plain-file\/data \(PLANT_STORE_DATA_DIR\) cannot be made or opened/,
    );
  });

  it('when the directory is read-only (or, for root, under /sys, which refuses root too), then one line and exit 1', async () => {
    if (process.getuid?.() === 0) {
      // Root writes through a 0500 mode; sysfs refuses root too (EPERM).
      await expectRefused('/sys/plant-store/data', /cannot be made or opened: EPERM/);
      return;
    }
    const readOnly = join(directory, 'read-only');
    writeFileSync(join(directory, 'x'), '');
    chmodSync(directory, 0o500);
    await expectRefused(readOnly, /cannot be made or opened/);
  });

  it('when the directory would be under /proc/<pid>/ (where mkdir answers ENOENT under a parent that exists), then one line and exit 1, not a hang', async () => {
    await expectRefused(
      '/proc/1/plant-store/data',
      /data directory \/proc\/1\/plant-store\/data .*cannot be made or opened/,
    );
  });

  it('when the data file is cut short (a copy stopped by a full disk), then one line and exit 1, not a SIGBUS', async () => {
    const dataDir = join(directory, 'data');
    const root = open({ path: join(dataDir, 'plants.mdb') });
    await root.put('x', 'y'.repeat(20_000));
    await root.close();
    const bytes = readFileSync(join(dataDir, 'plants.mdb'));
    writeFileSync(join(dataDir, 'plants.mdb'), bytes.subarray(0, bytes.length - 100));

    await expectRefused(dataDir, /plants\.mdb \(PLANT_STORE_DATA_DIR\) is damaged \(.*cut short\)/);
  });

  it('when the data file is a FIFO, then one line and exit 1, not a hang', async () => {
    const dataDir = join(directory, 'data');
    mkdirSync(dataDir);
    execFileSync('mkfifo', [join(dataDir, 'plants.mdb')]);

    await expectRefused(dataDir, /plants\.mdb \(PLANT_STORE_DATA_DIR\) is a FIFO/);
  });

  it('when the directory holds a store of another format, then one line names it and exit 1', async () => {
    const dataDir = join(directory, 'data');
    const root = open({ path: join(dataDir, 'plants.mdb') });
    const meta = root.openDB({ name: 'meta', keyEncoding: 'ordered-binary' });
    await meta.put('format', { store: 'plant-store', format: 99 });
    await root.close();

    await expectRefused(dataDir, /holds plant-store data of format 99/);
  });
});
