import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DATA_FILE } from './lmdb-data-file.js';

// scripts/build-lmdb.mjs builds lmdb's addon with LMDB's fixes into ADDON_DIR (its prebuilds/
// directory) and marks it (FIX_MARKER); the script names both the same.
export const ADDON_DIR = fileURLToPath(new URL('../../../../build/lmdb-addon', import.meta.url));
export const FIX_MARKER = 'plant-store-fix.json';
/** The setting that lets several processes share a data directory on the stock addon. */
export const STOCK_ADDON_SETTING = 'PLANT_STORE_LMDB_STOCK_ADDON';

// lmdb's loader (node-gyp-build-optional-packages) looks for the addon in $LMDB_PREBUILD instead of
// lmdb's own directory, then in lmdb's platform package. Set before lmdb loads: lmdb-environment.ts,
// the one module that imports lmdb, imports this one first. Only when the build is there (pnpm
// would not find the platform package from ADDON_DIR); an operator's own LMDB_PREBUILD wins.
if (existsSync(ADDON_DIR)) process.env.LMDB_PREBUILD ??= ADDON_DIR;

const lmdbDir = (): string => dirname(dirname(createRequire(import.meta.url).resolve('lmdb')));

// lmdb-js's write.js console.errors a failed commit with its stack (a full disk: one per commit),
// then rejects the commit, which our writer reports in one line: those lines alone are dropped.
const writeJs = pathToFileURL(join(lmdbDir(), 'write.js')).href;
const consoleError = console.error;
console.error = function (this: Console, ...args: unknown[]) {
  if (new Error().stack?.split('\n')[2]?.includes(writeJs) !== true) consoleError.apply(this, args);
};

/** The path of the addon lmdb loads in this process, as lmdb's own loader picks it. */
export function lmdbAddonPath(): string {
  const lmdb = lmdbDir();
  const require = createRequire(join(lmdb, 'package.json'));
  const loader = require('node-gyp-build-optional-packages') as { path(dir: string): string };
  const picked = loader.path(lmdb);
  const { LMDB_PREBUILD } = process.env;
  if (LMDB_PREBUILD === undefined || require.cache[picked] !== undefined) return picked;
  // lmdb loaded before LMDB_PREBUILD was set (a host imported it first): the one it took.
  delete process.env.LMDB_PREBUILD;
  try {
    const stock = loader.path(lmdb);
    return require.cache[stock] === undefined ? picked : stock;
  } finally {
    process.env.LMDB_PREBUILD = LMDB_PREBUILD;
  }
}

/** Whether that addon is the one built with the fixes (false also when lmdb cannot say). */
export function lmdbAddonHasOpenFix(): boolean {
  try {
    return existsSync(join(dirname(lmdbAddonPath()), FIX_MARKER));
  } catch {
    return false;
  }
}

const STOCK_ADDON_WARNING =
  "lmdb's addon is the stock build, without LMDB's fix ITS#9496: a process opening this data " +
  "directory while another writes can make that writer's next commit overwrite its last one (an " +
  'acknowledged write lost). One process alone is safe; several are refused unless ' +
  `${STOCK_ADDON_SETTING}=allow. Rebuild it: \`npm rebuild plant-store\` (needs a C/C++ compiler, ` +
  'make and Python 3; npm 12 runs it once approved: `npm install-scripts approve plant-store`).';

const allowed = (): boolean => process.env[STOCK_ADDON_SETTING] === 'allow';
const refusal = (what: string): string =>
  `${what}: lmdb's addon is the stock build, without LMDB's fix ITS#9496, which loses writes when ` +
  `several processes share a data directory; rebuild it (npm rebuild plant-store) or set ` +
  `${STOCK_ADDON_SETTING}=allow to take that risk`;

/** At `serve`'s start on the embedded store: the warning on stderr, and `--workers N` refused. */
export function checkServeAddon(workers: number): void {
  if (lmdbAddonHasOpenFix()) return;
  process.stderr.write(`plant-store: ${STOCK_ADDON_WARNING}\n`);
  if (workers > 1 && !allowed()) throw new Error(refusal(`--workers ${workers} refused`));
}

// Before opening `dataDir` on the stock addon: the warning, and a refusal while another process
// has it open, by the fcntl lock LMDB holds on its lock file in /proc/locks (Linux; elsewhere, and
// for two processes opening at the same instant, only the warning is left).
export function checkStockAddon(dataDir: string, notice?: (line: string) => void): void {
  if (lmdbAddonHasOpenFix()) return;
  notice?.(STOCK_ADDON_WARNING);
  if (allowed()) return;
  const dataFile = join(dataDir, DATA_FILE);
  let stats, locks;
  try {
    stats = statSync(`${dataFile}-lock`);
    locks = readFileSync('/proc/locks', 'utf8');
  } catch {
    return;
  }
  const hex = (n: number) => n.toString(16).padStart(2, '0');
  // The kernel's device encoding, as /proc/locks prints it: major:minor:inode.
  const major = ((stats.dev >>> 8) & 0xfff) | (Math.floor(stats.dev / 2 ** 32) & ~0xfff);
  const minor = (stats.dev & 0xff) | ((stats.dev >>> 12) & ~0xff);
  const id = `${hex(major)}:${hex(minor)}:${stats.ino}`;
  for (const line of locks.split('\n')) {
    const [, , , , pid, where] = line.split(/\s+/);
    if (where === id && Number(pid) !== process.pid) {
      throw new Error(refusal(`${dataFile} is open in process ${pid}`));
    }
  }
}
