import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { once } from 'node:events';
import { CLI, runProgram, spawnProgram } from '../../support/service-process.js';

describe('plant-store tokens (the real program): arguments an operator could misread', function () {
  // Each case is a process started through tsx on shared cores.
  this.timeout(60_000);
  let dir: string;
  let env: Record<string, string>;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plant-store-cli-args-'));
    env = { PLANT_STORE_DATA_DIR: join(dir, 'data') };
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const refused: [string, string[], RegExp][] = [
    [
      '--tenant is given twice',
      ['--tenant', 'a', '--tenant', 'b'],
      /--tenant is given more than once/,
    ],
    ['--tenant= is given twice', ['--tenant=a', '--tenant=b'], /--tenant is given more than once/],
    ['--name is given twice', ['--tenant', 'a', '--name', 'x', '--name', 'y'], /--name is given/],
    [
      '--expires-in is given twice',
      ['--tenant', 'a', '--expires-in', '1d', '--expires-in', 'never'],
      /--expires-in is given/,
    ],
    ['the tenant is one space', ['--tenant', ' '], /tenant must be more than whitespace/],
    ['the tenant holds U+202E', ['--tenant', 'acme\u202Eevil'], /tenant must be free of/],
    [
      'the tenant is not NFC (e + U+0301)',
      ['--tenant', 'cafe\u0301'],
      /tenant must be in Unicode normalization form C/,
    ],
    [
      'the name holds U+202E',
      ['--tenant', 'a', '--name', 'ci\u202Etxt.exe'],
      /name must be free of/,
    ],
    [
      'the name is only whitespace',
      ['--tenant', 'a', '--name', '   '],
      /name must be more than whitespace/,
    ],
  ];

  for (const [what, args, reason] of refused) {
    it(`when ${what}, then tokens create exits 2 with the reason and issues nothing`, async () => {
      const outcome = await runProgram(
        [...CLI, 'tokens', 'create', ...args, '--scope', 'plants:read'],
        env,
      );

      expect(outcome.code, outcome.stderr).to.equal(2);
      expect(outcome.stderr).to.match(reason);
      expect(outcome.stdout).to.equal('');
      const listed = await runProgram([...CLI, 'tokens', 'list'], env);
      expect(listed.stdout.trim().split('\n'), 'tokens listed').to.have.length(1);
    });
  }

  it('when tokens list is given --tenant twice or a whitespace tenant, then it exits 2', async () => {
    const [twice, blank] = await Promise.all([
      runProgram([...CLI, 'tokens', 'list', '--tenant', 'a', '--tenant', 'b'], env),
      runProgram([...CLI, 'tokens', 'list', '--tenant', '\t'], env),
    ]);

    expect([twice.code, blank.code]).to.deep.equal([2, 2]);
    expect(twice.stderr).to.match(/--tenant is given more than once/);
  });

  it('when --scope is repeated, then both scopes are issued (it is the one repeatable option)', async () => {
    const outcome = await runProgram(
      [
        ...CLI,
        'tokens',
        'create',
        '--tenant',
        'a',
        '--scope',
        'plants:read',
        '--scope',
        'plants:write',
        '--json',
      ],
      env,
    );

    expect(outcome.code, outcome.stderr).to.equal(0);
    expect(JSON.parse(outcome.stdout).scopes).to.deep.equal(['plants:read', 'plants:write']);
  });
});

describe('plant-store (the real program) when its reader closes stdout early', () => {
  it('when stdout is closed before the command prints, then it ends with 141 and no stack', async () => {
    const child = spawnProgram([...CLI, 'config'], {});
    // Closed before the program has started: its first line meets EPIPE, as under `| head -0`.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    const [code] = (await once(child, 'close')) as [number];

    expect(stderr).to.equal('');
    expect(code).to.equal(141);
  });
});
