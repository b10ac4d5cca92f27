import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { runCli } from '../../../src/cli/run-cli.js';
import {
  openPlantStore,
  openTokenAdministration,
  openWebhookAdministration,
} from '../../../src/composition/open-administration.js';
import { freePort } from '../../support/free-port.js';

/** runCli in this process, with its output captured (test/e2e runs the real program). */
async function run(args: string[], env: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: (l: string) => out.push(l), err: (l: string) => err.push(l) };
  // The real administrations; serving is left to the process tests (test/main.test.ts).
  const code = await runCli(args, env, io, {
    serve: () => expect.fail('no command here may start the service'),
    openTokenAdministration,
    openWebhookAdministration,
    openPlantStore,
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

describe('runCli (the plant-store command line)', () => {
  const directory = mkdtempSync(join(tmpdir(), 'plant-store-run-cli-'));
  const env = { PLANT_STORE_DATA_DIR: join(directory, 'data') };
  after(() => rmSync(directory, { recursive: true, force: true }));

  const refusals: [string, string[], number, RegExp][] = [
    ['no command', [], 2, /a command is required/],
    ['an unknown command', ['frobnicate'], 2, /unknown command "frobnicate"/],
    ['arguments to serve', ['serve', '--port', '1'], 2, /serve takes no arguments/],
    ['serve --workers without a count', ['serve', '--workers'], 2, /--workers must be a number/],
    ['serve --workers 0', ['serve', '--workers', '0'], 2, /--workers must be a number from 1/],
    ['tokens without a command', ['tokens'], 2, /tokens needs a command: create, list or revoke$/],
    [
      'webhooks without a command',
      ['webhooks'],
      2,
      /webhooks needs a command: add, list, remove, rotate-secret, enable or disable$/,
    ],
    [
      'webhooks add with --tenant twice',
      ['webhooks', 'add', '--tenant', 'a', '--tenant', 'b', '--url', 'https://a.example'],
      2,
      /--tenant is given more than once/,
    ],
    ['an unknown tokens command', ['tokens', 'rotate'], 2, /unknown tokens command "rotate"/],
    [
      'an unknown scope',
      ['tokens', 'create', '--tenant', 't', '--scope', 'plants:admin'],
      2,
      /unknown scope "plants:admin"/,
    ],
    ['no tenant', ['tokens', 'create', '--scope', 'plants:read'], 2, /a tenant is required/],
    ['no scope', ['tokens', 'create', '--tenant', 't'], 2, /at least one scope/],
    [
      'a tenant with a control character',
      ['tokens', 'create', '--tenant', 't\u001b[2J', '--scope', 'plants:read'],
      2,
      /tenant must be/,
    ],
    [
      'a name that is too long',
      ['tokens', 'create', '--tenant', 't', '--scope', 'plants:read', '--name', 'n'.repeat(101)],
      2,
      /name must be at most 100/,
    ],
    [
      'an unknown option',
      ['tokens', 'create', '--tenant', 't', '--scope', 'plants:read', '--admin'],
      2,
      /--admin/,
    ],
    [
      'a bad lifetime',
      ['tokens', 'create', '--tenant', 't', '--scope', 'plants:read', '--expires-in', '1y'],
      2,
      /--expires-in/,
    ],
    [
      'a lifetime over ten years',
      ['tokens', 'create', '--tenant', 't', '--scope', 'plants:read', '--expires-in', '3651d'],
      2,
      /--expires-in/,
    ],
    ['an empty tenant filter', ['tokens', 'list', '--tenant', ''], 2, /--tenant must not be empty/],
    ['a stray argument to list', ['tokens', 'list', 'acme'], 2, /acme/],
    ['a revoke without an id', ['tokens', 'revoke'], 2, /exactly one token id/],
    ['a revoke of a malformed id', ['tokens', 'revoke', 'xyz'], 2, /not a token id/],
    [
      'a revoke of an unknown id',
      ['tokens', 'revoke', 'ffffffffffffffff'],
      3,
      /no token with id ffffffffffffffff/,
    ],
  ];
  for (const [what, args, code, reason] of refusals) {
    it(`when given ${what}, then it exits ${code} with a reason on stderr and stores nothing`, async () => {
      const own = { PLANT_STORE_DATA_DIR: join(directory, randomUUID()) };

      const outcome = await run(args, own);

      expect(outcome.code).to.equal(code);
      expect(outcome.stderr.split('\n')[0])
        .to.match(reason)
        .and.match(/^plant-store: /);
      expect(outcome.stdout).to.equal('');
      expect((await run(['tokens', 'list', '--json'], own)).stdout).to.equal('[]');
    });
  }

  it('when no command is given, then the reason names every command the help lists', async () => {
    const help = (await run(['--help'], env)).stdout;
    const listed = [...help.matchAll(/^ {2}([a-z]+) {2,}/gm)].map(([, name]) => name!);

    const outcome = await run([], env);

    expect(listed).to.include.members([
      'serve',
      'tokens',
      'webhooks',
      'export',
      'import',
      'backup',
    ]);
    expect(outcome.stderr.split('\n')[0]).to.equal(
      `plant-store: a command is required: ${listed.slice(0, -1).join(', ')} or ${listed.at(-1)}`,
    );
  });

  it('when a command under tokens or webhooks is refused, then the hint names the help of that command', async () => {
    const [token, webhook] = [
      await run(['tokens', 'list', 'acme'], env),
      await run(['webhooks', 'remove', 'acme'], env),
    ];

    expect(token.stderr.split('\n')[1]).to.equal('Run "plant-store tokens list --help" for usage.');
    expect(webhook.stderr.split('\n')[1]).to.equal(
      'Run "plant-store webhooks remove --help" for usage.',
    );
  });

  const commands = [
    [],
    ['serve'],
    ['tokens'],
    ['tokens', 'create'],
    ['tokens', 'list'],
    ['tokens', 'revoke'],
    ['webhooks'],
    ['webhooks', 'rotate-secret'],
    ['export'],
  ];
  for (const args of commands) {
    it(`when "${[...args, '--help'].join(' ')}" is run, then it prints its usage and exits 0`, async () => {
      const outcome = await run([...args, '--help'], { PLANT_STORE_STORAGE: 'floppy' });

      expect(outcome.code).to.equal(0);
      expect(outcome.stdout).to.match(new RegExp(`^Usage: plant-store ${args.join(' ')}`));
    });
  }

  for (const flag of ['--version', '-v']) {
    it(`when "${flag}" is given, then the package's version is printed and it exits 0`, async () => {
      const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

      const outcome = await run([flag], { PLANT_STORE_STORAGE: 'floppy' });

      expect([outcome.code, outcome.stdout]).to.deep.equal([0, version]);
    });
  }

  it('when --json is asked of create, then the token and its record are printed, without the digest', async () => {
    const { code, stdout, stderr } = await run(
      [
        'tokens',
        'create',
        '--tenant',
        'json',
        '--scope',
        'plants:read',
        '--expires-in',
        'never',
        '--json',
      ],
      env,
    );

    const printed = JSON.parse(stdout) as Record<string, unknown>;
    expect(code).to.equal(0);
    expect(printed.token).to.match(/^pst_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(printed).to.include({ tenant: 'json', name: '' });
    expect(printed).to.not.have.any.keys('digest', 'expiresAt');
    expect(stderr).to.match(/expires never\. It is shown once/);
  });

  it('when tokens are listed as a table, then each has one aligned row and no secret', async () => {
    const tenant = `table-${randomUUID()}`;
    const made = await run(
      ['tokens', 'create', '--tenant', tenant, '--scope', 'plants:read', '--name', 'ci job'],
      env,
    );

    const table = await run(['tokens', 'list', '--tenant', tenant], env);

    const [header, row, ...more] = table.stdout.split('\n');
    expect(header).to.match(/^ID {16}NAME {4}TENANT +SCOPES +CREATED +EXPIRES +LAST USED +STATUS$/);
    expect(row).to.match(
      new RegExp(
        `^${made.stdout.slice(4, 20)}  ci job  ${tenant}  plants:read  \\S+Z  \\S+Z  - +active$`,
      ),
    );
    expect(more).to.deep.equal([]);
    expect(table.stdout).to.not.include(made.stdout.slice(21));
  });

  it('when a revoke is given a whole token, then the token it names is revoked', async () => {
    const created = await run(['tokens', 'create', '--tenant', 'w', '--scope', 'plants:read'], env);

    const revoked = await run(['tokens', 'revoke', created.stdout], env);

    expect(revoked.code).to.equal(0);
    expect(revoked.stdout).to.include(created.stdout.slice(4, 20));
    expect(revoked.stdout).to.not.include(created.stdout.slice(21));
  });

  it('when serve --workers is asked on the memory storage, then it exits 2 naming the shared storages', async () => {
    const outcome = await run(['serve', '--workers', 'auto'], { PLANT_STORE_STORAGE: 'memory' });

    expect(outcome.code).to.equal(2);
    expect(outcome.stderr.split('\n')[0]).to.match(
      /^plant-store: --workers needs a storage the workers share \(lmdb, the default, redis or mongodb\): the memory storage keeps plants inside one process/,
    );
  });

  it('when the storage is memory, then the tokens commands refuse in one line, exit 1, and write nothing', async () => {
    const cwd = process.cwd();
    const empty = mkdtempSync(join(tmpdir(), 'plant-store-memory-cli-'));
    process.chdir(empty);
    try {
      const outcome = await run(['tokens', 'list'], { PLANT_STORE_STORAGE: 'memory' });

      expect([outcome.code, outcome.stdout]).to.deep.equal([1, '']);
      expect(outcome.stderr).to.equal(
        'plant-store: PLANT_STORE_STORAGE=memory keeps managed tokens inside the serving process, which this command cannot reach; use the durable default (PLANT_STORE_STORAGE unset, or lmdb), redis or mongodb',
      );
      expect(readdirSync(empty)).to.deep.equal([]);
    } finally {
      process.chdir(cwd);
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('when the storage is unusable or unreachable, then it exits 1 with one line naming the problem', async () => {
    const notADirectory = join(directory, 'plain-file');
    writeFileSync(notADirectory, '');

    const [redisPort, mongoPort] = [await freePort(), await freePort()];

    const [unreachable, redisDown, mongoDown] = await Promise.all([
      run(['tokens', 'create', '--tenant', 't', '--scope', 'plants:read'], {
        PLANT_STORE_DATA_DIR: join(notADirectory, 'data'),
      }),
      run(['tokens', 'list'], {
        PLANT_STORE_STORAGE: 'redis',
        REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      }),
      run(['tokens', 'list'], {
        PLANT_STORE_STORAGE: 'mongodb',
        MONGODB_URL: `mongodb://127.0.0.1:${mongoPort}/plant_store`,
      }),
    ]);

    expect(unreachable.code).to.equal(1);
    expect(unreachable.stderr).to.match(
      /^plant-store: data directory .* \(PLANT_STORE_DATA_DIR\) cannot be made or opened: [^\n]*$/,
    );
    expect(redisDown.code).to.equal(1);
    expect(redisDown.stderr).to.match(
      /^plant-store: Redis at 127\.0\.0\.1:\d+ \(REDIS_URL\) is not ready after [^\n]*$/,
    );
    expect([mongoDown.code, mongoDown.stderr]).to.deep.equal([
      1,
      `plant-store: MongoDB at ${mongoDown.stderr.match(/at (\S+) /)?.[1]} (MONGODB_URL) is not ready after 2 s (connection refused)`,
    ]);
  });
});
