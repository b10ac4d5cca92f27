// Builds lmdb-js's native addon with upstream LMDB's fix for ITS#9496, which lmdb-js 3.5.6's copy
// of LMDB lacks: a process opening the environment set the shared "last transaction" to the meta
// page it had read, without the write lock, so a commit another process made in between was
// overwritten by the next one (acknowledged writes lost; with fast commits, a damaged file).
// Upstream guards that assignment with `prev &&` (only an exclusive PREVSNAPSHOT opening makes
// it); this applies that one-token change and builds the addon from the sources npm installed,
// into lmdb's own prebuilds/ directory, which its loader prefers to the platform package.
// Run by `npm install` (postinstall); safe to run again. Needs what node-gyp needs: a C/C++
// compiler, make, Python 3 and this Node's headers (no download). When it cannot build, it says
// why and leaves the stock addon in place: the store then warns at every opening (docs/storage.md,
// "Processes opening the directory while another writes").
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const VERSION = '3.5.6';
const FIX = 'ITS#9496';
const BUGGY = '\tif (env->me_txns)\n\t\tenv->me_txns->mti_txnid = meta.mm_txnid;';
const FIXED = '\tif (prev && env->me_txns)\n\t\tenv->me_txns->mti_txnid = meta.mm_txnid;';
// src/adapters/storage/lmdb/lmdb-addon.ts looks for it (FIX_MARKER).
const MARKER = 'plant-store-fix.json';

// Where Node finds `lmdb` from here (its exports do not include its package.json).
const lmdb = createRequire(import.meta.url)
  .resolve.paths('lmdb')
  .map((modules) => join(modules, 'lmdb'))
  .find((dir) => existsSync(join(dir, 'package.json')));
const libc = process.env.LIBC ?? (existsSync('/etc/alpine-release') ? 'musl' : 'glibc');
const out = lmdb && join(lmdb, 'prebuilds', `${process.platform}-${process.arch}`);
// One addon for every Node (N-API, as lmdb-js ships for Node 24), and one with lmdb-js's V8 fast
// paths for the Node that installs (as lmdb-js ships for Node 20 and 22).
const builds = [
  { file: `node.napi.${libc}.node`, env: { ENABLE_V8_FUNCTIONS: 'false' } },
  { file: `node.abi${process.versions.modules}.${libc}.node`, env: {} },
];
const marker = JSON.stringify({ lmdb: VERSION, fix: FIX, files: builds.map((b) => b.file) });

function warn(problem) {
  console.warn(
    `plant-store: lmdb's addon was not rebuilt with LMDB's fix ${FIX} (${problem}).\n` +
      '  The stock addon stays: one process is safe, but a process opening the data directory while\n' +
      "  another writes can lose that writer's last commit. Install a C/C++ compiler, make and\n" +
      '  Python 3, then run `npm rebuild plant-store` (in this repository: `npm run build:lmdb`).',
  );
}

function main() {
  if (lmdb === undefined) return warn('lmdb is not installed');
  // lmdb's binding.gyp takes its C++ headers (a dependency of plant-store, not of lmdb).
  createRequire(join(lmdb, 'package.json')).resolve('node-addon-api');
  const { version } = JSON.parse(readFileSync(join(lmdb, 'package.json'), 'utf8'));
  if (version !== VERSION)
    return warn(`lmdb ${version} installed; the fix was checked on ${VERSION}`);
  const markerPath = join(out, MARKER);
  if (existsSync(markerPath) && readFileSync(markerPath, 'utf8') === marker) return;

  const source = join(lmdb, 'dependencies', 'lmdb', 'libraries', 'liblmdb', 'mdb.c');
  const text = readFileSync(source, 'utf8');
  if (text.split(BUGGY).length === 2) writeFileSync(source, text.replace(BUGGY, FIXED));
  else if (text.split(FIXED).length !== 2)
    return warn(`${source} is not the one the fix was made for`);

  // The node-gyp npm runs scripts with (npm sets the variable), else the one it ships.
  const prefix = join(dirname(process.execPath), '..');
  const nodeGyp =
    process.env.npm_config_node_gyp ??
    join(prefix, 'lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js');
  // This Node's own headers, so that node-gyp downloads nothing.
  const nodedir = existsSync(join(prefix, 'include', 'node', 'node_api.h'))
    ? [`--nodedir=${prefix}`]
    : [];
  mkdirSync(out, { recursive: true });
  rmSync(markerPath, { force: true });
  for (const build of builds) {
    const built = spawnSync(process.execPath, [nodeGyp, 'rebuild', '-j', 'max', ...nodedir], {
      cwd: lmdb,
      env: { ...process.env, ...build.env },
      encoding: 'utf8',
    });
    if (built.status !== 0) {
      rmSync(join(lmdb, 'build'), { recursive: true, force: true });
      rmSync(out, { recursive: true, force: true });
      const tail = `${built.stderr ?? ''}${built.error ?? ''}`
        .trim()
        .split('\n')
        .slice(-3)
        .join(' | ');
      return warn(`node-gyp failed: ${tail}`);
    }
    renameSync(join(lmdb, 'build', 'Release', 'lmdb.node'), join(out, build.file));
    // lmdb's loader takes build/Release before prebuilds/, for every Node: none may stay.
    rmSync(join(lmdb, 'build'), { recursive: true, force: true });
  }
  writeFileSync(markerPath, marker);
  console.log(`plant-store: lmdb ${VERSION} built with LMDB's fix ${FIX} into ${out}`);
}

try {
  main();
} catch (error) {
  warn(String(error));
}
