import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { runCli } from '../../../src/cli/run-cli.js';

/** `plant-store config` in this process: its exit code and its lines, one row per variable. */
async function config(args: string[], env: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: (l: string) => out.push(l), err: (l: string) => err.push(l) };
  const code = await runCli(args, env, io, {
    serve: () => expect.fail('config does not serve'),
    openTokenAdministration: () => expect.fail('config opens no storage'),
  });
  const rows = Object.fromEntries(
    out.map((line) => {
      const [name, value, ...source] = line.split(/ {2,}/);
      return [name!, { value: value!, source: source.join(' ') }];
    }),
  );
  return { code, rows, stderr: err.join('\n') };
}

describe('plant-store config', () => {
  const directory = mkdtempSync(join(tmpdir(), 'plant-store-config-'));
  after(() => rmSync(directory, { recursive: true, force: true }));

  it('when some variables are set, then each row says its value and whether it came from the environment or the default', async () => {
    const { code, rows } = await config(['config'], { PORT: '9090', PLANT_STORE_RATE_LIMIT: '50' });
    expect(code).to.equal(0);
    expect(rows.PORT).to.deep.equal({ value: '9090', source: 'environment' });
    expect(rows.HOST).to.deep.equal({ value: '127.0.0.1', source: 'default' });
    expect(rows.PLANT_STORE_RATE_LIMIT).to.deep.equal({ value: '50', source: 'environment' });
    expect(rows.REDIS_URL!.source).to.equal('default (not used: only with redis)');
    expect(rows.PLANT_STORE_DATA_DIR!.source).to.equal('default');
  });

  it('when secrets are set, then tokens and keys show as set and URLs without their password', async () => {
    const { rows } = await config(['config'], {
      PLANT_STORE_STORAGE: 'redis',
      REDIS_URL: 'redis://app:s3cret@redis.internal:6379',
      PLANT_STORE_TOKENS:
        '[{"token":"abcdefghijklmnopqrst","tenant":"t","scopes":["plants:read"]}]',
    });
    expect(rows.REDIS_URL).to.deep.equal({
      value: 'redis://app:***@redis.internal:6379',
      source: 'environment',
    });
    expect(rows.PLANT_STORE_TOKENS).to.deep.equal({ value: 'set', source: 'environment' });
    expect(rows.PLANT_STORE_JWT_PUBLIC_KEY!.value).to.equal('unset');
    expect(JSON.stringify(rows)).to.not.include('s3cret').and.not.include('abcdefghijklmnopqrst');
  });

  it('when --env-file names a file, then its variables apply under the environment, and say where they came from', async () => {
    const file = join(directory, '.env');
    writeFileSync(file, 'PORT=7070\nLOG_LEVEL=debug\n# a comment\nPLANT_STORE_RATELIMIT=5\n');
    const env = { LOG_LEVEL: 'warn' };
    const { code, rows } = await config(['--env-file', file, 'config'], env);
    expect(code).to.equal(0);
    expect(rows.PORT).to.deep.equal({ value: '7070', source: 'env file' });
    expect(rows.LOG_LEVEL).to.deep.equal({ value: 'warn', source: 'environment' });
    // A misspelt name is shown, not silently ignored.
    expect(rows.PLANT_STORE_RATELIMIT!.source).to.equal('env file (not a plant-store variable)');
  });

  it('when a value is bad, then it exits 1 naming the variable, as serve would', async () => {
    const { code, stderr } = await config(['config'], { PORT: 'eighty' });
    expect(code).to.equal(1);
    expect(stderr).to.match(/^plant-store: PORT must be a whole number/);
  });
});
