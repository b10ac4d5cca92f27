import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { serverMissing } from '../../support/server-requirement.js';
import { ensureBuilt, ROOT, runModule } from './support/built-dist.js';

const run = promisify(execFile);

// Variables `npm test` sets for its own project; the consumer's npm must find its own.
const npmEnv = Object.fromEntries(
  Object.entries(process.env).filter(
    ([name]) => !/^(?:npm_package_|npm_lifecycle_|npm_config_local_prefix$|INIT_CWD$)/.test(name),
  ),
);

const npm = (args: string[], cwd: string) =>
  run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    env: npmEnv,
    timeout: 120_000,
  });

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2023',
    lib: ['ES2023'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    exactOptionalPropertyTypes: true,
    skipLibCheck: false,
    types: ['node'],
    outDir: 'out',
  },
  files: ['consumer.ts', 'custom-plant-store.ts'],
};

describe('the packed package, installed in a fresh project', function () {
  this.timeout(180_000);
  let project = '';

  before(async function () {
    const available = await run('npm', ['--version'], { env: npmEnv }).then(
      () => true,
      () => false,
    );
    if (!available) return serverMissing(this, 'npm', 'npm is not on PATH');
    await ensureBuilt();
    project = await mkdtemp(join(tmpdir(), 'plant-store-consumer-'));
  });
  after(async () => {
    if (project !== '') await rm(project, { recursive: true, force: true });
  });

  it('when a strict program uses plant-store/client, plant-store/core and plant-store, then it type-checks with skipLibCheck: false and runs', async () => {
    const started = performance.now();
    const { stdout: packed } = await npm(
      ['pack', '--ignore-scripts', '--json', '--pack-destination', project],
      ROOT,
    );
    const [{ filename, files }] = JSON.parse(packed) as [
      { filename: string; files: { path: string }[] },
    ];
    const paths = files.map((file) => file.path);
    expect(paths).to.include.members([
      'LICENSE',
      'CHANGELOG.md',
      'dist/core.js',
      'dist/client/index.d.ts',
    ]);
    expect(paths.filter((path) => path.endsWith('.map') || path.startsWith('src/'))).to.deep.equal(
      [],
    );

    const devTypes = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')).devDependencies;
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    await writeFile(join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    for (const file of TSCONFIG.files) {
      await copyFile(new URL(`./support/consumer/${file}`, import.meta.url), join(project, file));
    }
    await npm(
      [
        'install',
        '--prefer-offline',
        join(project, filename),
        `@types/node@${devTypes['@types/node']}`,
      ],
      project,
    );
    const installed = performance.now();

    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const checked = await run(process.execPath, [tsc, '-p', project], { cwd: project }).catch(
      (error: { stdout?: string }) => expect.fail(`tsc refused the consumer:\n${error.stdout}`),
    );
    expect(checked.stderr).to.equal('');
    const compiled = performance.now();

    const { stdout } = await run(process.execPath, [join(project, 'out', 'consumer.js')], {
      cwd: project,
      timeout: 30_000,
    });
    expect(JSON.parse(stdout)).to.deep.equal({
      created: { name: 'Monstera', tag: 'aroid' },
      duplicate: 409,
      names: ['Fern', 'Monstera'],
      left: [{ name: 'Fern' }],
      custom: {
        stored: [
          [200, null],
          [200, null],
        ],
        quota: [403, 40302],
        down: [503, 50301],
        ready: 503,
        events: 2,
      },
    });

    const importMs = Number(
      await runModule(
        "const start = performance.now(); await import('plant-store/core'); console.log(performance.now() - start);",
        project,
      ),
    );
    console.log(
      `      pack + install ${((installed - started) / 1000).toFixed(1)} s, tsc ${((compiled - installed) / 1000).toFixed(1)} s, ` +
        `import 'plant-store/core' from the installed package ${importMs.toFixed(1)} ms`,
    );
    expect(importMs).to.be.below(300);
  });
});
