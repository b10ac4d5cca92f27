import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { BUILT_CLI, buildDist, runProgram } from '../../support/service-process.js';

const COMMANDS = 120;

describe('plant-store tokens create, 120 commands at once on one token file (the real program)', function () {
  // A build, then 120 processes of the built bin (through tsx each would cost minutes of CPU).
  this.timeout(300_000);
  let dir: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plant-store-lock-'));
    await buildDist();
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('when 120 tokens create run in parallel, then all succeed and the file holds 120 tokens', async () => {
    const env = { PLANT_STORE_TOKEN_FILE: join(dir, 'tokens.json') };
    const outcomes = await Promise.all(
      Array.from({ length: COMMANDS }, (_, i) =>
        runProgram(
          [
            ...BUILT_CLI,
            'tokens',
            'create',
            '--tenant',
            `t${i % 7}`,
            '--scope',
            'plants:read',
            '--name',
            `n${i}`,
          ],
          env,
          240_000,
        ),
      ),
    );

    const failed = outcomes.filter((outcome) => outcome.code !== 0);
    expect(failed.map((outcome) => outcome.stderr)).to.deep.equal([]);
    for (const outcome of outcomes) expect(outcome.stderr).to.not.match(/remove/i);
    const file = JSON.parse(await readFile(env.PLANT_STORE_TOKEN_FILE, 'utf8')) as {
      tokens: { name: string }[];
    };
    expect(file.tokens).to.have.length(COMMANDS);
    expect(new Set(file.tokens.map((token) => token.name)).size).to.equal(COMMANDS);
  });
});
