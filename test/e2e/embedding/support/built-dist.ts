import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));

/** Builds dist/ as `npm start` does: only when a source is newer than its output. */
export async function ensureBuilt(): Promise<void> {
  await run(process.execPath, ['--import', 'tsx', 'scripts/build-if-stale.ts'], {
    cwd: ROOT,
    timeout: 170_000,
  });
}

/** Runs an ES module given as text in a fresh `node` (no tsx, no test runner); resolves its stdout. */
export async function runModule(source: string, cwd = ROOT): Promise<string> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', source], {
    cwd,
    timeout: 30_000,
  });
  return stdout;
}
