import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { serverMissing } from '../../support/server-requirement.js';
import { ensureBuilt, ROOT, runModule } from './support/built-dist.js';

const run = promisify(execFile);
/** The pnpm the consumer test installs with (its engines allow Node 18 and later). */
const PNPM = '12.4.2';

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
    timeout: 400_000,
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
  files: ['consumer.ts', 'custom-plant-store.ts', 'embedding-example.ts'],
};

/** Packs a package of the repository (`workspace` for the client) into `into`; the tarball's name. */
async function pack(
  into: string,
  workspace?: string,
): Promise<{ filename: string; paths: string[] }> {
  const { stdout } = await npm(
    [
      'pack',
      '--ignore-scripts',
      '--json',
      '--pack-destination',
      into,
      ...(workspace === undefined ? [] : ['--workspace', workspace]),
    ],
    ROOT,
  );
  const [{ filename, files }] = JSON.parse(stdout) as [
    { filename: string; files: { path: string }[] },
  ];
  return { filename, paths: files.map((file) => file.path) };
}

/** The bytes of every file under `dir`. */
async function bytesUnder(dir: string): Promise<number> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  const sizes = await Promise.all(
    entries
      .filter((entry) => entry.isFile())
      .map((entry) => stat(join(entry.parentPath, entry.name)).then(({ size }) => size)),
  );
  return sizes.reduce((sum, size) => sum + size, 0);
}

describe('the packed package, installed in a fresh project', function () {
  // An install builds lmdb's addon (postinstall): minutes on a busy machine.
  this.timeout(600_000);
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

  it('when a strict program uses plant-store/client, plant-store/core and plant-store (and the custom store of docs/embedding.md), then it type-checks with skipLibCheck: false and runs', async () => {
    const started = performance.now();
    // The root tarball alone, as a user installs it: the client travels inside it (bundled).
    const { filename, paths } = await pack(project);
    expect(paths).to.include.members([
      'LICENSE',
      'CHANGELOG.md',
      'dist/core.js',
      'dist/client/index.d.ts',
      'node_modules/plant-store-client/dist/index.js',
      // The README links there, and the CLI's help names docs/operations.md.
      'docs/operations.md',
      'docs/embedding.md',
    ]);
    expect(
      paths.filter(
        (path) =>
          path.endsWith('.map') || /^(?:node_modules\/plant-store-client\/)?src\//.test(path),
      ),
    ).to.deep.equal([]);

    const devTypes = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')).devDependencies;
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    await writeFile(join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    for (const file of ['consumer.ts', 'custom-plant-store.ts']) {
      await copyFile(new URL(`./support/consumer/${file}`, import.meta.url), join(project, file));
    }
    await writeFile(join(project, 'embedding-example.ts'), await embeddingExample());
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

    const bin = await run(join(project, 'node_modules', '.bin', 'plant-store'), ['--version'], {
      cwd: project,
    });
    expect(bin.stdout.trim()).to.equal(
      JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')).version,
    );
  });

  it('when pnpm installs the root tarball alone in a fresh project, then plant-store, plant-store/core and plant-store/client import and the bin runs', async function () {
    // pnpm's own strict layout: a package sees only its declared (or bundled) dependencies.
    const tools = join(project, 'pnpm-tool');
    await mkdir(tools);
    await npm(['install', '--prefix', tools, '-E', `pnpm@${PNPM}`], project);
    const pnpm = join(tools, 'node_modules', '.bin', 'pnpm');
    const consumer = join(project, 'pnpm-consumer');
    await mkdir(consumer);
    const { filename } = await pack(consumer);
    await writeFile(
      join(consumer, 'package.json'),
      JSON.stringify({ name: 'pnpm-consumer', private: true, type: 'module' }),
    );
    // pnpm runs no dependency's install script unless approved, and refuses to finish while one
    // is undecided (strictDepBuilds): plant-store's builds lmdb's fixed addon; lmdb's own and
    // msgpackr-extract's load prebuilt binaries without theirs; scarf's is analytics.
    await writeFile(
      join(consumer, 'pnpm-workspace.yaml'),
      [
        'allowBuilds:',
        // A tarball's key, as pnpm names it (from the registry: `plant-store: true`).
        `  'plant-store@file:${filename}': true`,
        '  lmdb: false',
        '  msgpackr-extract: false',
        "  '@scarf/scarf': false",
        '',
      ].join('\n'),
    );
    await run(pnpm, ['add', join(consumer, filename)], {
      cwd: consumer,
      env: npmEnv,
      timeout: 400_000,
    }).catch((error: { stderr?: string; stdout?: string }) =>
      expect.fail(`pnpm add failed:\n${error.stdout}\n${error.stderr}`),
    );

    const loaded = await runModule(
      [
        "const root = await import('plant-store');",
        "const core = await import('plant-store/core');",
        "const client = await import('plant-store/client');",
        'console.log(JSON.stringify([typeof root.createHttpApp, typeof core.PlantService, String(client.toPlantId(42))]));',
      ].join(' '),
      consumer,
    );
    expect(JSON.parse(loaded)).to.deep.equal(['function', 'function', '42']);
    const bin = await run(join(consumer, 'node_modules', '.bin', 'plant-store'), ['--help'], {
      cwd: consumer,
    });
    expect(bin.stdout).to.match(/^Usage: plant-store <command>/);
  });

  it('when plant-store-client is packed and installed alone in an empty project, then it is one package under 200 kB, and it loads', async () => {
    const alone = join(project, 'client-alone');
    await mkdir(alone);
    const { filename, paths } = await pack(alone, 'plant-store-client');
    expect(paths).to.include.members(['package.json', 'README.md', 'LICENSE', 'dist/index.d.ts']);
    expect(
      paths.filter((path) => !/^(?:dist\/|package\.json$|README\.md$|LICENSE$)/.test(path)),
    ).to.deep.equal([]);
    await writeFile(
      join(alone, 'package.json'),
      JSON.stringify({ name: 'client-alone', private: true, type: 'module' }),
    );
    await npm(['install', '--prefer-offline', join(alone, filename)], alone);

    const installed = (await readdir(join(alone, 'node_modules'))).filter(
      (name) => !name.startsWith('.'),
    );
    expect(installed).to.deep.equal(['plant-store-client']);
    const bytes = await bytesUnder(join(alone, 'node_modules'));
    console.log(
      `      plant-store-client alone: ${installed.length} package, ${(bytes / 1000).toFixed(1)} kB installed`,
    );
    expect(bytes).to.be.below(200_000);

    const exported = await runModule(
      "const client = await import('plant-store-client'); console.log(JSON.stringify([Object.keys(client).sort(), String(client.toPlantId(42))]));",
      alone,
    );
    expect(JSON.parse(exported)).to.deep.equal([
      [
        'ERROR_CODES',
        'PlantStoreClient',
        'PlantStoreError',
        'PlantStoreHttpError',
        'PlantStoreNetworkError',
        'PlantStoreResponseError',
        'PlantStoreTimeoutError',
        'toPlantId',
      ],
      '42',
    ]);
  });
});

/** The worked example of docs/embedding.md ("Your own PlantStore"): the consumer type-checks it as its own file. */
async function embeddingExample(): Promise<string> {
  const doc = await readFile(join(ROOT, 'docs', 'embedding.md'), 'utf8');
  const block = /```ts\n([\s\S]*?)```/.exec(doc.slice(doc.indexOf('### Your own PlantStore')));
  expect(block, 'docs/embedding.md: the TypeScript block of "Your own PlantStore"').to.not.equal(
    null,
  );
  return block![1]!;
}
