import { expect } from 'chai';
import { useRedis, type RedisUnderTest } from '../../support/redis-server.js';
import { serverMissing } from '../../support/server-requirement.js';
import { CLI, runProgram, startService } from '../../support/service-process.js';

const NO_TOKEN = /no token can reach this service yet/;
const COMMAND = /^ {2}(.*plant-store tokens create .*)$/m;

describe('serve on Redis with no token configured', function () {
  this.timeout(120_000);
  let redis: RedisUnderTest | undefined;

  before(async function () {
    const started = await useRedis();
    if (typeof started === 'string') return serverMissing(this, 'Redis', started);
    redis = started;
  });
  after(() => redis?.close());

  it('when it starts, then stderr says no token reaches it and the command it prints issues one that does', async () => {
    const env = {
      PLANT_STORE_STORAGE: 'redis',
      REDIS_URL: redis!.url,
      PLANT_STORE_REDIS_PREFIX: redis!.prefix,
    };
    const first = await startService(env, [...CLI, 'serve']);
    let line: string;
    try {
      await first.waitFor(NO_TOKEN);
      line = (await first.waitFor(COMMAND))[1]!;
    } finally {
      await first.stop();
    }

    // The line as an operator pastes it: VAR=value assignments, then the command's arguments.
    const words = line.split(' ');
    const given = Object.fromEntries(
      words
        .filter((word) => /^[A-Z_]+=/.test(word))
        .map((word) => word.split(/=(.*)/s).slice(0, 2)),
    );
    const args = words.slice(words.indexOf('plant-store') + 1);
    expect(given).to.deep.equal(env);
    const created = await runProgram([...CLI, ...args], given);
    expect(created.code, created.stderr).to.equal(0);
    const token = created.stdout.trim();

    const second = await startService(env, [...CLI, 'serve']);
    try {
      const listed = await fetch(`http://127.0.0.1:${second.port}/plants`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      expect(listed.status).to.equal(200);
      expect(second.output()).to.not.match(NO_TOKEN);
    } finally {
      await second.stop();
    }
  });
});
