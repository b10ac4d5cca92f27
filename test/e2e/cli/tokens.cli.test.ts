import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { describeTokenLifecycle, plantStore } from '../../support/token-lifecycle.js';

const directory = mkdtempSync(join(tmpdir(), 'plant-store-cli-'));
after(() => rmSync(directory, { recursive: true, force: true }));
const env = { PLANT_STORE_DATA_DIR: join(directory, 'data') };

describeTokenLifecycle('lmdb (default)', async () => ({ env, dispose: () => {} }), {
  expiry: true,
});

describe('plant-store (the real program): exit codes', function () {
  // Four commands start at once through tsx (over 20 s on two loaded cores).
  this.timeout(60_000);
  it('when the program is refused, then the process exits with the documented code (2 usage, 3 not found, 1 failure)', async () => {
    const [usage, notFound, failure, help] = await Promise.all([
      plantStore(['tokens', 'create', '--tenant', 't', '--scope', 'plants:admin'], env),
      plantStore(['tokens', 'revoke', 'ffffffffffffffff'], env),
      plantStore(['tokens', 'list'], { PLANT_STORE_STORAGE: 'floppy' }),
      plantStore(['tokens', 'create', '--help'], env),
    ]);

    expect([usage.code, notFound.code, failure.code, help.code]).to.deep.equal([2, 3, 1, 0]);
    expect(usage.stderr).to.match(/^plant-store: unknown scope "plants:admin"/);
    expect(notFound.stderr).to.equal('plant-store: no token with id ffffffffffffffff\n');
    expect(failure.stderr).to.equal(
      'plant-store: PLANT_STORE_STORAGE must be memory, redis, mongodb or lmdb (got "floppy")\n',
    );
    expect(help.stdout.split('\n')[0]).to.equal(
      'Usage: plant-store tokens create --tenant T --scope S [--scope S] [options]',
    );
  });
});
