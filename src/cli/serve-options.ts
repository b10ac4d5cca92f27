import { availableParallelism } from 'node:os';
import { loadConfig, type Config } from '../config/index.js';
import { EXIT, UsageError } from './exit-codes.js';

/** How `serve` runs besides the configuration: worker processes (node:cluster), or one process. */
export interface ServeOptions {
  workers?: number;
}

export const SERVE_HELP = `Usage: plant-store serve [--workers N|auto]

Runs the HTTP service until SIGTERM or SIGINT. Configured by the environment (PORT, HOST,
PLANT_STORE_STORAGE, PLANT_STORE_DATA_DIR, PLANT_STORE_TOKENS, PLANT_STORE_JWT_*, ...).

Options:
  --workers N|auto   serve from N worker processes on one port (auto: one per core), sharing
                     one store: lmdb (the default), redis or mongodb; not memory
  -h, --help         show this help`;

/** `N` (1 to 256) or `auto` (one per core this process may use). */
function parseWorkers(value = ''): number {
  if (value === 'auto') return availableParallelism();
  if (/^[1-9][0-9]{0,2}$/.test(value) && Number(value) <= 256) return Number(value);
  throw new UsageError(`--workers must be a number from 1 to 256 or "auto" (got "${value}")`);
}

/**
 * `serve [--workers N|auto]` (also `--workers=N`); resolves once the service listens. Parsed by
 * hand: parseArgs would refuse `--workers` without a count or `--port 1` in words of its own.
 */
export async function serveCommand(
  args: string[],
  env: NodeJS.ProcessEnv,
  serve: (config: Config, options: ServeOptions) => Promise<unknown>,
): Promise<number> {
  let workers: number | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--workers') workers = parseWorkers(args[++i]);
    else if (arg.startsWith('--workers=')) workers = parseWorkers(arg.slice('--workers='.length));
    else throw new UsageError(`serve takes no arguments but --workers N|auto (got "${arg}")`);
  }
  const config = loadConfig(env);
  if (workers !== undefined && config.storage.kind === 'memory') {
    throw new UsageError(
      '--workers needs a storage the workers share (lmdb, the default, redis or mongodb): the memory storage keeps plants inside one process, which other workers cannot see',
    );
  }
  await serve(config, workers === undefined ? {} : { workers });
  return EXIT.ok;
}
