import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startRedisServer } from '../../support/redis-server.js';
import { suiteServer } from '../../support/server-requirement.js';
import { body, end, file, HEADER } from '../../support/export-text.js';
import { CLI, runProgram } from '../../support/service-process.js';

describe('plant-store import (the CLI as a process): what a file says, escaped and checked', function () {
  this.timeout(60_000);
  const redis = suiteServer('Redis', startRedisServer, (s) => s.close());
  let dir: string;
  let count = 0;
  let prefix: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plant-import-text-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));
  beforeEach(() => {
    prefix = `import-text-${++count}:`;
  });

  const redisEnv = () => ({
    PLANT_STORE_STORAGE: 'redis',
    REDIS_URL: redis().url,
    PLANT_STORE_REDIS_PREFIX: prefix,
  });
  const cli = (args: string[]) => runProgram([...CLI, ...args], redisEnv(), 60_000);
  const put = async (name: string, text: string) => {
    const path = join(dir, `${count}-${name}`);
    await writeFile(path, text);
    return path;
  };
  const good = (id: number) => `{"tenant":"b","id":${id},"name":"ok ${id}"}`;
  const plantLines = async () => {
    const { code, stdout, stderr } = await cli(['export']);
    expect(code, stderr).to.equal(0);
    return body(stdout).slice(0, -2);
  };

  it('when lines quote control and bidirectional characters in their errors, then none reaches stderr: each is escaped', async () => {
    const sequence =
      '\\u001b]0;PWNED\\u0007\\u001b[2J\\u001b[1;31mFAKE: imported 5 plants OK\\u001b[0m';
    const text = file(
      HEADER,
      `{"tenant":"b","id":1,"name":"dup","${sequence}":1,"${sequence}":2}`,
      '{"tenant":"b","id":2,"name":"raw \u001b[2J escape"}',
      '{"tenant":"b","id":3,"name":"raw \r return"}',
      '{"tenant":"b" \u009b2J \u202Eexe.txt \u0007}',
      good(5),
      end(5),
    );
    const { code, stderr } = await cli([
      'import',
      '--input',
      await put('escapes.ndjson', text),
      '--max-errors',
      '10',
    ]);

    expect(code).to.equal(4);
    // eslint-disable-next-line no-control-regex -- exactly what must not reach the terminal
    expect(stderr).not.to.match(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(stderr).to.include(
      "line 2: invalid-line: not valid JSON: Duplicate key '\\u001B]0;PWNED\\u0007\\u001B[2J",
    );
    expect(stderr).to.include("line 3: invalid-line: not valid JSON: Invalid character '\\u001B'");
    expect(stderr).to.include("line 4: invalid-line: not valid JSON: Invalid character '\\u000D'");
    expect(stderr).to.include(
      "line 5: invalid-line: not valid JSON: Comma ',' expected after value but got '\\u009B'",
    );
    expect(stderr).to.match(/imported 1 plants, .* 4 bad lines/);
  });

  it('when the header gives its version as a string, then the import says the type is wrong (exit 4)', async () => {
    const header = HEADER.replace('"version":1', '"version":"1"');
    const { code, stderr } = await cli([
      'import',
      '--input',
      await put('version.ndjson', file(header, good(1), end(1))),
    ]);

    expect(code).to.equal(4);
    expect(stderr).to.include(
      "the header's version must be an integer; the file's is a string (this import reads version 1); nothing was imported",
    );
    expect(await plantLines()).to.deep.equal([]);
  });

  it('when a line names a tenant that is not NFC (e + U+0301), then it is refused as invalid-tenant and the composed one imported', async () => {
    const text = file(
      HEADER,
      '{"tenant":"cafe\u0301","id":1,"name":"decomposed"}',
      '{"tenant":"caf\u00e9","id":1,"name":"composed"}',
      end(2),
    );
    const { code, stderr } = await cli([
      'import',
      '--input',
      await put('nfc.ndjson', text),
      '--max-errors',
      '1',
    ]);

    expect(code).to.equal(4);
    expect(stderr).to.include(
      'line 2: invalid-tenant: tenant must be in Unicode normalization form C (NFC',
    );
    expect(await plantLines()).to.deep.equal(['{"tenant":"caf\u00e9","id":1,"name":"composed"}']);
  });
});
