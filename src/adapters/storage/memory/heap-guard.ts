import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';

/** How full the V8 heap may get, in percent of its limit, before the memory store refuses creates. */
export const DEFAULT_HEAP_LIMIT_PERCENT = 85;
/** Inserts between two readings of the heap: a reading is cheap, but not free. */
export const HEAP_CHECK_INTERVAL = 64;

export type HeapStatistics = () => { used_heap_size: number; heap_size_limit: number };

const MIB = 1024 * 1024;

/** The last value (MiB) of a V8 size flag on the command line or in NODE_OPTIONS (V8 reads both). */
export function v8SizeFlag(
  name: string,
  argv: readonly string[] = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? '',
): number | undefined {
  const pattern = new RegExp(`^--${name.replaceAll('-', '[-_]')}=(\\d+)$`);
  const values = [...nodeOptions.split(/\s+/), ...argv].map((arg) => pattern.exec(arg)?.[1]);
  const last = values.findLast((value) => value !== undefined);
  return last === undefined ? undefined : Number(last);
}

/**
 * What the old generation (the plants) can grow to: `--max-old-space-size`, else the heap's limit
 * less the young generation (3 semi-spaces: 16 MiB each on Node 20, 64 MiB on 24 and when unknown).
 */
export function oldGenerationLimit(
  heapSizeLimit = getHeapStatistics().heap_size_limit,
  v8Major = Number(process.versions.v8.split('.')[0]),
  flag: (name: string) => number | undefined = v8SizeFlag,
): number {
  const oldSpace = flag('max-old-space-size');
  if (oldSpace !== undefined) return Math.min(oldSpace * MIB, heapSizeLimit);
  const semiSpace = (flag('max-semi-space-size') ?? (v8Major <= 11 ? 16 : 64)) * MIB;
  return Math.max(heapSizeLimit - 3 * semiSpace, heapSizeLimit / 4);
}

let limit: number | undefined; // fixed for the life of the process

/** The old generation's committed memory (fragmentation counts, as V8 counts it) and its limit. */
function oldGeneration(): ReturnType<HeapStatistics> {
  const young = getHeapSpaceStatistics()
    .filter((space) => space.space_name.startsWith('new_')) // new_space, new_large_object_space
    .reduce((sum, space) => sum + space.space_size, 0);
  return {
    used_heap_size: getHeapStatistics().total_heap_size - young,
    heap_size_limit: (limit ??= oldGenerationLimit()),
  };
}

/**
 * Refuses creates past a share of the heap's limit, before V8 aborts the process (losing every
 * plant); read once every `interval` inserts, refused ones included (so freed memory is seen).
 */
export class HeapGuard {
  private calls = 0;
  private full = false;

  constructor(
    private readonly percent: number = DEFAULT_HEAP_LIMIT_PERCENT,
    private readonly statistics: HeapStatistics = oldGeneration,
    private readonly interval: number = HEAP_CHECK_INTERVAL,
  ) {}

  /** Whether an insert may go ahead, from the latest reading (taken now every `interval` calls). */
  hasRoom(): boolean {
    return this.calls++ % this.interval === 0 ? this.read() : !this.full;
  }

  /** Whether the heap has room now, from a fresh reading. */
  read(): boolean {
    const { used_heap_size: used, heap_size_limit: limit } = this.statistics();
    this.full = used * 100 >= limit * this.percent;
    return !this.full;
  }
}
