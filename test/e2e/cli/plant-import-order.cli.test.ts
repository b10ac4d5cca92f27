import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startMongoServer } from '../../support/mongo-server.js';
import { startRedisServer } from '../../support/redis-server.js';
import { suiteServer } from '../../support/server-requirement.js';
import { CLI, runProgram } from '../../support/service-process.js';

const IDS = 1000;
const HEADER =
  '{"format":"plant-store-export","version":1,"takenAt":"2026-01-01T00:00:00.000Z","tenants":null}';
const plantLine = (id: number, name: string) => `{"tenant":"t","id":${id},"name":"${name} ${id}"}`;

/** Ids 1..IDS named A, then the same ids named B: two batches of one tenant that share every id. */
function repeatedIds(): string {
  const lines = [HEADER];
  for (const name of ['A', 'B']) for (let id = 1; id <= IDS; id++) lines.push(plantLine(id, name));
  lines.push(`{"format":"plant-store-export","end":true,"plants":${2 * IDS}}`);
  return `${lines.join('\n')}\n`;
}

describe('plant-store import of a file that repeats ids (the CLI as a process)', function () {
  this.timeout(180_000);
  const redis = suiteServer('Redis', startRedisServer, (s) => s.close());
  const mongo = suiteServer('MongoDB', startMongoServer, (s) => s.dispose());
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plant-import-order-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const stores: [string, () => Record<string, string>][] = [
    ['the default store (lmdb)', () => ({ PLANT_STORE_DATA_DIR: join(dir, 'lmdb') })],
    ['Redis', () => ({ PLANT_STORE_STORAGE: 'redis', REDIS_URL: redis().url })],
    ['MongoDB', () => ({ PLANT_STORE_STORAGE: 'mongodb', MONGODB_URL: mongo().url })],
  ];
  for (const [name, env] of stores) {
    it(`when ${name} imports 1,000 ids as A then as B under overwrite, then every plant is B`, async () => {
      const input = join(dir, `${name.replace(/\W/g, '-')}.ndjson`);
      await writeFile(input, repeatedIds());

      const imported = await runProgram(
        [...CLI, 'import', '--input', input, '--on-conflict', 'overwrite'],
        env(),
        150_000,
      );
      const exported = await runProgram([...CLI, 'export'], env(), 60_000);

      expect(imported.code, imported.stderr).to.equal(0);
      expect(imported.stderr).to.match(
        /imported 1000 plants, 0 already present, 1000 replaced, 0 conflicts/,
      );
      expect(exported.code, exported.stderr).to.equal(0);
      const plants = exported.stdout.trimEnd().split('\n').slice(1, -1);
      expect(plants).to.deep.equal(Array.from({ length: IDS }, (_, i) => plantLine(i + 1, 'B')));
    });
  }
});
