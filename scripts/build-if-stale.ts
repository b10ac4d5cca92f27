// `npm start` runs this first: it builds dist/ only when a source is newer than what was built from
// it, so that an up-to-date `npm start` starts at once instead of recompiling every time.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const CONFIGS = ['tsconfig.json', 'tsconfig.build.json'];

const mtime = (path: string): number | undefined => {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(dir, entry.name))
      : entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/** The sources under `root`/src whose dist/ output is missing or older than them (or than a tsconfig). */
export function staleSources(root: string): string[] {
  const configTime = Math.max(0, ...CONFIGS.map((name) => mtime(join(root, name)) ?? 0));
  return sources(join(root, 'src')).filter((source) => {
    const output = join(root, 'dist', relative(join(root, 'src'), source)).replace(/\.ts$/, '.js');
    const built = mtime(output);
    return built === undefined || built < Math.max(mtime(source)!, configTime);
  });
}

/** Builds `root`'s dist/ from scratch with `config` when a source is newer than its output. */
function buildIfStale(root: string, config: string, name: string): void {
  const stale = staleSources(root);
  if (stale.length === 0) {
    console.error(`${name}: dist/ is up to date`);
    return;
  }
  console.error(`${name}: building dist/ (${stale.length} sources changed)`);
  // From scratch, as `npm run build` does: no output of a deleted source (or an old map) stays.
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', config], { cwd: root, stdio: 'inherit' });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  // As `prepare`, also run by the Dockerfile's `npm ci` before the sources are copied in: no build.
  if (existsSync(join(root, 'src'))) {
    // The client package first: the server's build reads its declarations.
    buildIfStale(join(root, 'packages', 'client'), 'tsconfig.json', 'plant-store-client');
    buildIfStale(root, 'tsconfig.build.json', 'plant-store');
  }
}
