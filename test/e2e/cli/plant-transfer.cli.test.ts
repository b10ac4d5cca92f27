import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { MemoryPlantStore } from '../../../src/adapters/storage/memory/memory-plant-store.js';
import { plantsKey } from '../../../src/adapters/storage/redis/redis-plant-codec.js';
import { exportPlants } from '../../../src/application/plant-export.js';
import { MAX_PLANT_ID, MIN_PLANT_ID } from '../../../src/domain/plant-id.js';
import { startMongoServer } from '../../support/mongo-server.js';
import { startRedisCluster, startRedisServer } from '../../support/redis-server.js';
import { serverMissing, suiteServer } from '../../support/server-requirement.js';
import { bigExport, body, end, file, HEADER } from '../../support/export-text.js';
import { CLI, runProgram, startProgram } from '../../support/service-process.js';

// Every kind of text the contract allows in a name or tag: astral, combining, RTL, quotes,
// backslashes, line separators, the private use area, DEL's neighbours, the empty tag.
const NAMES = [
  'Monstera 🌵🌱 植物',
  'e\u0301 combining',
  'עברית مرحبا',
  '"quoted" \\back\\ /slash/',
  'line\u2028sep\u2029para',
  '\uE000 private \uFFFD \u{10FFFF}',
  '~ ' + 'x'.repeat(254),
];
const IDS = [MIN_PLANT_ID, -(2n ** 53n) - 1n, -1n, 0n, 2n ** 53n, 2n ** 53n + 1n, MAX_PLANT_ID];
const TENANTS = ['acme', 'Zürich 🌵', '{tag}:*', '\uE000-tenant', '🌱-astral'];

/** A memory store holding every tenant, id and name above, exported through the library. */
async function memoryExport(): Promise<string> {
  const store = new MemoryPlantStore();
  for (const [t, tenant] of TENANTS.entries()) {
    for (const [i, id] of IDS.entries()) {
      const name = NAMES[(i + t) % NAMES.length]!;
      await store.insert(
        tenant,
        i % 2 === 0 ? { id, name } : { id, name, tag: i === 1 ? '' : '🏷' },
      );
    }
  }
  let text = '';
  for await (const line of exportPlants(store)) text += `${line}\n`;
  return text;
}

describe('plant-store export and import (the CLI as a process)', function () {
  this.timeout(120_000);
  const redis = suiteServer('Redis', startRedisServer, (s) => s.close());
  const cluster = suiteServer('Redis Cluster', startRedisCluster, (s) => s.close());
  const mongo = suiteServer('MongoDB', startMongoServer, (s) => s.dispose());
  let dir: string;
  let prefix: string;
  let count = 0;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plant-transfer-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    // A prefix per test: each test sees an empty store.
    prefix = `transfer-${++count}:`;
  });

  const redisEnv = () => ({
    PLANT_STORE_STORAGE: 'redis',
    REDIS_URL: redis().url,
    PLANT_STORE_REDIS_PREFIX: prefix,
  });
  const cli = (args: string[], env: Record<string, string>) =>
    runProgram([...CLI, ...args], env, 90_000);
  const put = async (name: string, text: string) => {
    const path = join(dir, `${count}-${name}`);
    await writeFile(path, text);
    return path;
  };
  const exported = async (env: Record<string, string>): Promise<string> => {
    const { code, stdout, stderr } = await cli(['export'], env);
    expect(code, stderr).to.equal(0);
    return stdout;
  };

  it('when plants go memory -> NDJSON -> Redis -> Redis Cluster -> MongoDB -> NDJSON, then the plant lines are identical', async () => {
    const original = await memoryExport();
    expect(original)
      .to.include('"id":-9223372036854775808,')
      .and.include('"id":9223372036854775807,');
    expect(original).to.include('"id":9007199254740993,');
    const targets = [
      redisEnv(),
      { PLANT_STORE_STORAGE: 'redis', REDIS_URL: cluster().url, PLANT_STORE_REDIS_PREFIX: prefix },
      { PLANT_STORE_STORAGE: 'mongodb', MONGODB_URL: mongo().url },
    ];
    let text = original;
    for (const env of targets) {
      const input = await put('hop.ndjson', text);
      const imported = await cli(['import', '--input', input], env);
      expect(imported.code, imported.stderr).to.equal(0);
      expect(imported.stderr).to.match(
        /imported 35 plants, 0 already present.*no webhook event recorded/,
      );
      text = await exported(env);
      expect(body(text)).to.deep.equal(body(original));
    }
    const viaFile = join(dir, 'final.ndjson');
    const written = await cli(['export', '--output', viaFile], targets[2]!);
    expect(written.code, written.stderr).to.equal(0);
    expect(written.stdout).to.equal('');
    expect(body(await readFile(viaFile, 'utf8'))).to.deep.equal(body(original));
  });

  it('when an import is killed with SIGKILL half-way and run again, then the store holds exactly the file', async () => {
    const total = 150_000;
    const input = await put('big.ndjson', bigExport('big', total));
    const client = new Redis(redis().url);
    try {
      const running = startProgram([...CLI, 'import', '--input', input], redisEnv());
      const key = plantsKey(prefix, 'big');
      let held = 0;
      while (held < 5000) {
        await sleep(10);
        held = await client.zcard(key);
      }
      running.kill('SIGKILL');
      const killed = await running.outcome;
      expect(killed.signal).to.equal('SIGKILL');
      const partial = await client.zcard(key);
      expect(partial).to.be.above(0).and.below(total);

      const rerun = await cli(['import', '--input', input], redisEnv());

      expect(rerun.code, rerun.stderr).to.equal(0);
      expect(rerun.stderr).to.match(
        new RegExp(`imported ${total - partial} plants, ${partial} already present`),
      );
      expect(await client.zcard(key)).to.equal(total);
      expect(body(await exported(redisEnv()))).to.deep.equal(body(await readFile(input, 'utf8')));
    } finally {
      client.disconnect();
    }
  });

  it('when an import gets SIGINT (Ctrl-C), then it stops between batches, exits 130 and a rerun finishes', async () => {
    const total = 150_000;
    const input = await put('interrupted.ndjson', bigExport('ctrl-c', total));
    const client = new Redis(redis().url);
    try {
      const running = startProgram([...CLI, 'import', '--input', input], redisEnv());
      const key = plantsKey(prefix, 'ctrl-c');
      while ((await client.zcard(key)) < 5000) await sleep(10);
      running.kill('SIGINT');
      const stopped = await running.outcome;

      expect(stopped.code, stopped.stderr).to.equal(130);
      expect(stopped.stderr).to.include('import interrupted between batches; rerun it to finish');
      const held = await client.zcard(key);
      // Whole batches of 1000 only: nothing half-written.
      expect(held % 1000).to.equal(0);
      expect(held).to.be.below(total);
      const rerun = await cli(['import', '--input', input], redisEnv());
      expect(rerun.code, rerun.stderr).to.equal(0);
      expect(await client.zcard(key)).to.equal(total);
    } finally {
      client.disconnect();
    }
  });

  it('when an export to a file gets SIGINT, then it exits 130 and leaves neither the file nor its temporary', async () => {
    const input = await put('to-export.ndjson', bigExport('export-me', 150_000));
    const imported = await cli(['import', '--input', input], redisEnv());
    expect(imported.code, imported.stderr).to.equal(0);
    const output = join(dir, `${count}-interrupted-export.ndjson`);

    const running = startProgram([...CLI, 'export', '--output', output], redisEnv());
    while (
      !(await readdir(dir)).some((name) => name.startsWith(`${count}-interrupted-export.ndjson.`))
    ) {
      await sleep(5);
    }
    running.kill('SIGINT');
    const stopped = await running.outcome;

    expect(stopped.code, stopped.stderr).to.equal(130);
    expect(stopped.stderr).to.include('export interrupted');
    expect(
      (await readdir(dir)).filter((name) => name.includes('interrupted-export')),
    ).to.deep.equal([]);
  });

  it('when the store goes away mid-import, then the import says so (exit 1) and a rerun completes', async function () {
    const own = await startRedisServer();
    if (typeof own === 'string') return serverMissing(this, 'Redis', own);
    const env = {
      PLANT_STORE_STORAGE: 'redis',
      REDIS_URL: own.url,
      PLANT_STORE_REDIS_PREFIX: prefix,
    };
    const input = await put('gone.ndjson', bigExport('gone', 150_000));
    const client = new Redis(own.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    try {
      const running = startProgram([...CLI, 'import', '--input', input], env);
      let held = 0;
      while (held < 5000) {
        await sleep(10);
        held = await client.zcard(plantsKey(prefix, 'gone'));
      }
      client.disconnect();
      await own.server.stop();
      const failed = await running.outcome;
      expect(failed.code, failed.stderr).to.equal(1);
      expect(failed.stderr).to.match(
        /storage is unavailable after \d+ plants were imported or found present; rerun the import to finish/,
      );

      await own.server.start();
      const rerun = await cli(['import', '--input', input], env);

      expect(rerun.code, rerun.stderr).to.equal(0);
      expect(body(await exported(env))).to.deep.equal(body(await readFile(input, 'utf8')));
    } finally {
      client.disconnect();
      await own.close();
    }
  });

  describe('conflicts: the store holds plant 1 as "old"; the file brings 1 as "new" and 2', () => {
    const input = () =>
      put(
        'conflict.ndjson',
        file(
          HEADER,
          '{"tenant":"c","id":1,"name":"new"}',
          '{"tenant":"c","id":2,"name":"two"}',
          end(2),
        ),
      );
    const seed = async () => {
      const first = await cli(
        [
          'import',
          '--input',
          await put('old.ndjson', file(HEADER, '{"tenant":"c","id":1,"name":"old"}', end(1))),
        ],
        redisEnv(),
      );
      expect(first.code, first.stderr).to.equal(0);
    };
    const plantLines = async () => body(await exported(redisEnv())).slice(0, -2);

    it('when --on-conflict fail (the default), then it exits 4 naming the line, and the conflict is kept', async () => {
      await seed();
      const { code, stderr } = await cli(['import', '--input', await input()], redisEnv());

      expect(code).to.equal(4);
      expect(stderr).to.include('line 2: conflict: tenant "c" holds plant 1 with other content');
      expect(stderr).to.include('stopped at a conflict');
      expect(await plantLines()).to.deep.equal([
        '{"tenant":"c","id":1,"name":"old"}',
        '{"tenant":"c","id":2,"name":"two"}',
      ]);
    });

    it('when --on-conflict skip, then it reports the conflict, keeps the held plant and exits 0', async () => {
      await seed();
      const { code, stderr } = await cli(
        ['import', '--input', await input(), '--on-conflict', 'skip'],
        redisEnv(),
      );

      expect(code, stderr).to.equal(0);
      expect(stderr).to.match(/imported 1 plants, 0 already present, 0 replaced, 1 conflicts/);
      expect(await plantLines()).to.deep.equal([
        '{"tenant":"c","id":1,"name":"old"}',
        '{"tenant":"c","id":2,"name":"two"}',
      ]);
    });

    it('when --on-conflict overwrite, then the held plant is replaced', async () => {
      await seed();
      const { code, stderr } = await cli(
        ['import', '--input', await input(), '--on-conflict', 'overwrite'],
        redisEnv(),
      );

      expect(code, stderr).to.equal(0);
      expect(stderr).to.match(/imported 1 plants, 0 already present, 1 replaced, 0 conflicts/);
      expect(await plantLines()).to.deep.equal([
        '{"tenant":"c","id":1,"name":"new"}',
        '{"tenant":"c","id":2,"name":"two"}',
      ]);
    });
  });

  describe('bad input', () => {
    const good = (id: number) => `{"tenant":"b","id":${id},"name":"ok ${id}"}`;
    const plantLines = async () => body(await exported(redisEnv())).slice(0, -2);

    it('when the last line is cut short, then the plants before it are imported and it exits 4 naming the line', async () => {
      const text = file(HEADER, good(1), good(2), end(3)).slice(0, -1) + '\n';
      const cut = text.slice(0, text.lastIndexOf(good(2)) + 20);
      const { code, stderr } = await cli(
        ['import', '--input', await put('cut.ndjson', cut)],
        redisEnv(),
      );

      expect(code).to.equal(4);
      expect(stderr).to.match(/line 3: invalid-line: not valid JSON/);
      expect(await plantLines()).to.deep.equal([good(1)]);
    });

    it('when a file ends at a line end without its end line, then it exits 4: cut short', async () => {
      const { code, stderr } = await cli(
        ['import', '--input', await put('noend.ndjson', file(HEADER, good(1)))],
        redisEnv(),
      );

      expect(code).to.equal(4);
      expect(stderr).to.include('the file ends without its end line: it was cut short');
      expect(await plantLines()).to.deep.equal([good(1)]);
    });

    it('when a line is not JSON and --max-errors 1, then it is reported and the rest imported (exit 4)', async () => {
      const text = file(HEADER, good(1), 'not json at all', good(3), end(3));
      const { code, stderr } = await cli(
        ['import', '--input', await put('nojson.ndjson', text), '--max-errors', '1'],
        redisEnv(),
      );

      expect(code).to.equal(4);
      expect(stderr).to.match(/line 3: invalid-line: not valid JSON/);
      expect(stderr).to.match(/imported 2 plants, .* 1 bad lines/);
      expect(await plantLines()).to.deep.equal([good(1), good(3)]);
    });

    it('when plants break the contract, then each is refused with its line and the contract reason', async () => {
      const text = file(
        HEADER,
        '{"tenant":"b","id":9223372036854775808,"name":"too big"}',
        '{"tenant":"b","id":1.5,"name":"fraction"}',
        `{"tenant":"b","id":3,"name":"${'n'.repeat(257)}"}`,
        '{"tenant":"b","id":4,"name":"bell\\u0007"}',
        '{"tenant":"","id":5,"name":"no tenant"}',
        good(6),
        end(6),
      );
      const { code, stderr } = await cli(
        ['import', '--input', await put('refused.ndjson', text), '--max-errors', '10'],
        redisEnv(),
      );

      expect(code).to.equal(4);
      expect(stderr).to.include(
        'line 2: invalid-plant: id must be an integer from -9223372036854775808 to 9223372036854775807',
      );
      expect(stderr).to.include('line 3: invalid-plant: id must be an integer');
      expect(stderr).to.include(
        'line 4: invalid-plant: name must be 1 to 256 characters long (got 257)',
      );
      expect(stderr).to.include('line 5: invalid-plant: name must not contain control characters');
      expect(stderr).to.include('line 6: invalid-tenant: tenant must be a non-empty string');
      expect(await plantLines()).to.deep.equal([good(6)]);
    });

    it('when a tenant holds its quota, then the plants beyond it are refused for quota (exit 4)', async () => {
      const text = file(HEADER, good(1), good(2), good(3), end(3));
      const { code, stderr } = await cli(['import', '--input', await put('quota.ndjson', text)], {
        ...redisEnv(),
        PLANT_STORE_MAX_PLANTS_PER_TENANT: '2',
      });

      expect(code).to.equal(4);
      expect(stderr).to.include(
        'line 4: plant-quota-reached: tenant "b" holds its quota; plant 3 refused',
      );
      expect(stderr).to.match(/imported 2 plants, .* 1 refused for quota/);
    });

    it('when the file is not an export, then it exits 4 and imports nothing', async () => {
      const text = file('{"id":1,"name":"a plant, but no header"}', good(2));
      const { code, stderr } = await cli(
        ['import', '--input', await put('plain.ndjson', text)],
        redisEnv(),
      );

      expect(code).to.equal(4);
      expect(stderr).to.include(
        'line 1 is not the header of a plant-store-export file; nothing was imported',
      );
      expect(await plantLines()).to.deep.equal([]);
    });
  });

  it('when the storage is memory, then export and import refuse in one line (exit 1) and write nothing', async () => {
    for (const command of ['export', 'import']) {
      const { code, stdout, stderr } = await cli([command], {
        PLANT_STORE_STORAGE: 'memory',
        PLANT_STORE_DATA_DIR: join(dir, 'memory-data'),
      });

      expect([code, stdout]).to.deep.equal([1, '']);
      expect(stderr).to.equal(
        'plant-store: PLANT_STORE_STORAGE=memory keeps plants inside the serving process, which this command cannot reach; use the durable default (PLANT_STORE_STORAGE unset, or lmdb), redis or mongodb\n',
      );
      expect(existsSync(join(dir, 'memory-data'))).to.equal(false);
    }
  });
});
