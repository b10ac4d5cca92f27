import { availableParallelism } from 'node:os';
import type { ServeOptions } from '../composition/serve-options.js';
import { UsageError } from './exit-codes.js';

export type { ServeOptions };

const MAX_WORKERS = 256;

/** `N` (1 to 256) or `auto` (one per core this process may use). */
function parseWorkers(value: string | undefined): number {
  if (value === 'auto') return availableParallelism();
  if (value !== undefined && /^[1-9][0-9]{0,2}$/.test(value) && Number(value) <= MAX_WORKERS) {
    return Number(value);
  }
  throw new UsageError(
    `--workers must be a number from 1 to ${MAX_WORKERS} or "auto" (got "${value ?? ''}")`,
  );
}

/** Reads `serve`'s arguments: nothing, or `--workers N|auto` (also `--workers=N`). */
export function parseServeOptions(args: readonly string[]): ServeOptions {
  const rest = [...args];
  let workers: number | undefined;
  while (rest.length > 0) {
    const arg = rest.shift()!;
    const inline = arg.startsWith('--workers=') ? arg.slice('--workers='.length) : undefined;
    if (arg !== '--workers' && inline === undefined) {
      throw new UsageError(`serve takes no arguments but --workers N|auto (got "${arg}")`);
    }
    workers = parseWorkers(inline ?? rest.shift());
  }
  return workers === undefined ? {} : { workers };
}
