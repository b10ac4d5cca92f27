import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

// scripts/build-lmdb.mjs builds lmdb's addon with LMDB's fix ITS#9496 and marks the directory it
// builds into (the name is the script's MARKER); lmdb loads its addon from the path its loader
// picks, asked here the same way.
export const FIX_MARKER = 'plant-store-fix.json';

/** The path of the addon lmdb loads in this process, as lmdb's own loader picks it. */
export function lmdbAddonPath(): string {
  const require = createRequire(import.meta.url);
  const lmdb = dirname(dirname(require.resolve('lmdb')));
  const loader = createRequire(join(lmdb, 'package.json'))('node-gyp-build-optional-packages') as {
    path(dir: string): string;
  };
  return loader.path(lmdb);
}

/** Whether that addon is the one built with the fix (false also when lmdb cannot say). */
export function lmdbAddonHasOpenFix(): boolean {
  try {
    return existsSync(join(dirname(lmdbAddonPath()), FIX_MARKER));
  } catch {
    return false;
  }
}

export const STOCK_ADDON_WARNING =
  "lmdb's addon is the stock build, without LMDB's fix ITS#9496: a process opening this data " +
  "directory while another writes can make that writer's next commit overwrite its last one (an " +
  'acknowledged write lost). One process alone is safe. Rebuild it: `npm rebuild plant-store`, ' +
  'or `npm run build:lmdb` in the repository (needs a C/C++ compiler, make and Python 3).';
