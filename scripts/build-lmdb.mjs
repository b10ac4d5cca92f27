// Builds lmdb-js's addon with two fixes its copy of LMDB lacks (docs/storage.md, "lmdb's addon"),
// from a copy of lmdb's sources in build/lmdb-addon/, never touching lmdb's own files: upstream
// LMDB's ITS#9496 (an opening could make another process's next commit overwrite its last one),
// and mdb_page_flush's write error (a full disk) bounded, with no read of unset buffers (the
// overflow aborted processes in malloc) and no raw stderr line. lmdb loads it because
// src/adapters/storage/lmdb/lmdb-addon.ts points LMDB_PREBUILD at build/lmdb-addon. Run by
// `npm install` (postinstall); safe to run again. Without a compiler, make, Python 3 or this
// Node's headers, it says why on stderr and exits 0: the stock addon serves one process alone.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const VERSION = '3.5.6';
const FIXES = ['ITS#9496', 'bounded write error'];
const MDB_C = join('dependencies', 'lmdb', 'libraries', 'liblmdb', 'mdb.c');
// [what lmdb 3.5.6's mdb.c has, what the copy gets]: each found exactly once.
const PATCHES = [
  [
    '\tif (env->me_txns)\n\t\tenv->me_txns->mti_txnid = meta.mm_txnid;',
    '\tif (prev && env->me_txns)\n\t\tenv->me_txns->mti_txnid = meta.mm_txnid;',
  ],
  [
    '\t\t\t\t\t\tfprintf(stderr, "Write error: %s position %u, size %u", strerror(rc), wpos, wsize);\n' +
      '\t\t\t\t\t\tlast_error = malloc(100);\n' +
      '\t\t\t\t\t\tsprintf(last_error, "Attempting to write page at position %u, size %u, blocks %u, buffer sizes %i %i %i", wpos, wsize, n, iov[0].iov_len, iov[1].iov_len, iov[2].iov_len);\n',
    // Filled before it is published: mdb_strerror may read it from another thread.
    '\t\t\t\t\t\t{ char *msg = malloc(100); if (msg) { snprintf(msg, 100, "writing %d buffers, %lld bytes at %lld", n, (long long)wsize, (long long)wpos); last_error = msg; } }\n',
  ],
  ['\t\tfprintf(stderr, "mdb_page_spill flushing error %i\\n", rc);\n', ''],
  ['if (rc) {\n\tfprintf(stderr, "mdb_page_spill error %i\\n", rc);\n}\n', ''],
];
// src/adapters/storage/lmdb/lmdb-addon.ts reads both names.
const ADDON_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'build', 'lmdb-addon');
const MARKER = 'plant-store-fix.json';

const lmdb = createRequire(import.meta.url)
  .resolve.paths('lmdb')
  .map((modules) => join(modules, 'lmdb'))
  .find((dir) => fs.existsSync(join(dir, 'package.json')));
const libc = process.env.LIBC ?? (fs.existsSync('/etc/alpine-release') ? 'musl' : 'glibc');
const out = join(ADDON_DIR, 'prebuilds', `${process.platform}-${process.arch}`);
// One addon for every Node (N-API, as lmdb-js ships for Node 24), and one with lmdb-js's V8 fast
// paths for the Node that installs (as lmdb-js ships for Node 20 and 22).
const builds = [
  { file: `node.napi.${libc}.node`, env: { ENABLE_V8_FUNCTIONS: 'false' } },
  { file: `node.abi${process.versions.modules}.${libc}.node`, env: {} },
];
const marker = JSON.stringify({ lmdb: VERSION, fixes: FIXES, files: builds.map((b) => b.file) });

function warn(cause) {
  console.error(
    `plant-store: lmdb's addon was not built with LMDB's fixes: ${cause}\n` +
      'plant-store: the stock addon stays: one process on a data directory is safe; several at once ' +
      '(serve --workers, a command beside a running server) are refused, as they can lose writes ' +
      '(docs/storage.md). Install a C/C++ compiler, make and Python 3, then `npm rebuild plant-store`.',
  );
}

// The first line that says what went wrong (a compiler's, a shell's, node-gyp's own error), not
// node-gyp's closing summary.
const firstError = (output) =>
  (
    output
      .split('\n')
      .find((line) =>
        line.startsWith('gyp ')
          ? /^gyp ERR! stack \w*Error\b/.test(line)
          : /error|not found/i.test(line),
      ) ?? output.trim().split('\n').at(-1)
  )
    ?.replace(/^gyp ERR! stack /, '')
    .trim();

function build() {
  if (lmdb === undefined) return 'lmdb is not installed';
  const { version } = JSON.parse(fs.readFileSync(join(lmdb, 'package.json'), 'utf8'));
  if (version !== VERSION)
    return `lmdb ${version} is installed; the fixes were made for ${VERSION}`;
  const markerPath = join(out, MARKER);
  if (fs.existsSync(markerPath) && fs.readFileSync(markerPath, 'utf8') === marker) return;
  // node-gyp as npm runs it (npm sets the first), else npm's own, else a node-gyp package.
  const nodeGyp =
    process.env.npm_config_node_gyp ??
    createRequire(process.env.npm_execpath ?? import.meta.url).resolve('node-gyp/bin/node-gyp.js');
  // lmdb's binding.gyp asks `require('node-addon-api')` from the copy, inside this package: our own
  // dependency answers, wherever the package manager put lmdb's.
  createRequire(import.meta.url).resolve('node-addon-api');
  // This Node's own headers: node-gyp downloads nothing.
  const nodedir = join(dirname(process.execPath), '..');
  if (!fs.existsSync(join(nodedir, 'include', 'node', 'node_api.h')))
    return `this Node's headers are not in ${join(nodedir, 'include', 'node')}`;

  fs.rmSync(ADDON_DIR, { recursive: true, force: true });
  const source = join(ADDON_DIR, 'source');
  for (const part of ['binding.gyp', 'src', 'dependencies'])
    fs.cpSync(join(lmdb, part), join(source, part), { recursive: true });
  let text = fs.readFileSync(join(source, MDB_C), 'utf8');
  for (const [from, to] of PATCHES) {
    if (text.split(from).length !== 2)
      return `${join(lmdb, MDB_C)} is not the one the fixes were made for`;
    text = text.replace(from, to);
  }
  fs.writeFileSync(join(source, MDB_C), text);
  fs.mkdirSync(out, { recursive: true });
  for (const { file, env } of builds) {
    const built = spawnSync(
      process.execPath,
      [nodeGyp, 'rebuild', '-j', 'max', `--nodedir=${nodedir}`],
      { cwd: source, env: { ...process.env, ...env }, encoding: 'utf8' },
    );
    if (built.status !== 0) return firstError(`${built.stderr ?? ''}${built.error ?? ''}`);
    fs.renameSync(join(source, 'build', 'Release', 'lmdb.node'), join(out, file));
  }
  fs.rmSync(source, { recursive: true, force: true });
  fs.writeFileSync(markerPath, marker);
  console.log(`plant-store: lmdb ${VERSION} built with LMDB's fixes into ${out}`);
}

let failed;
try {
  failed = build();
} catch (error) {
  failed = String(error);
}
if (failed) {
  // Nothing half-built is left for the loader to take.
  fs.rmSync(ADDON_DIR, { recursive: true, force: true });
  warn(failed);
}
