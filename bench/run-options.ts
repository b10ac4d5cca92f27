import { parseArgs } from 'node:util';

// The options of `npm run bench -- ...` (bench/run.ts); bench/README.md says what each measures.

export interface RunSettings {
  rounds: number;
  /** Plants seeded before the rounds and the fixed-rate latency. */
  seed: number;
  warmup: number;
  duration: number;
  scaleSizes: number[];
  scaleDuration: number;
  latencyDuration: number;
  /** `--cold-pages`: GET asks for COLD_PAGES pages in turn (a cursor each) instead of the first one. */
  coldPages: boolean;
  /** The tags scenario's filtered tenant (1% of it tagged FILTER_TAG), against TAGS_SMALL plants. */
  tagPlants: number;
}

export interface RunOptions {
  quick: boolean;
  settings: RunSettings;
  /** `--servers a,b`: the keys chosen (the service always runs), or undefined for all. */
  chosen: Set<string> | undefined;
  /** `--spin N`: bare Koa once more, spinning N µs a request. */
  spinUs: number | undefined;
  /** `--baseline [store:][name=]path`, repeatable: other builds of the service. */
  baselines: string[];
  limits: boolean;
  observe: boolean;
  ferretdb: boolean;
  scaling: boolean;
  /** The tags scenario (`--no-tags` leaves it out): a filtered page at `tagPlants` against a page at TAGS_SMALL, and GET /plants/{id}. */
  tags: boolean;
  latency: boolean;
  /** Store kinds left out (`--no-redis`, `--no-mongodb`, `--no-lmdb`). */
  skipStores: Set<string>;
}

export const CONNECTIONS = 50;
export const SLICE_SECONDS = 1;
export const SCALE_CONNECTIONS = 10;
export const LIST_PATH = '/plants?limit=20';
/** The unfiltered tenant of the tags scenario, and the pages of each side it asks for (the first, then by each page's Link). */
export const TAGS_SMALL = 1000;
export const TAGS_PAGES = 3;
/**
 * `--cold-pages`: GET cycles through this many pages of 20 of the seeded plants (ids 1 to 10,000),
 * more than the embedded store's page cache holds (1,024), so that every page is read afresh.
 */
export const COLD_PAGES = 2000;

/** The GET paths of the rounds: the first page, or COLD_PAGES pages each after its own id. */
export const listPaths = (cold: boolean): string[] =>
  cold
    ? Array.from(
        { length: COLD_PAGES },
        (_, i) =>
          `${LIST_PATH}&cursor=${Buffer.from(`1:${((i * 4999) % 9_000) + 1}`).toString('base64url')}`,
      )
    : [LIST_PATH];

const QUICK: RunSettings = {
  rounds: 1,
  seed: 200,
  warmup: 0.2,
  duration: 0.5,
  scaleSizes: [1000],
  scaleDuration: 0.5,
  latencyDuration: 0.5,
  coldPages: false,
  tagPlants: 10_000,
};

function positive(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!(value > 0)) throw new Error(`--${name} takes a number above 0, got ${text}`);
  return value;
}

export function parseRunOptions(args: string[]): RunOptions {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      quick: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      warmup: { type: 'string' },
      duration: { type: 'string' },
      'scale-duration': { type: 'string' },
      'latency-duration': { type: 'string' },
      'no-scaling': { type: 'boolean', default: false },
      'no-latency': { type: 'boolean', default: false },
      'no-tags': { type: 'boolean', default: false },
      spin: { type: 'string' },
      baseline: { type: 'string', multiple: true, default: [] },
      limits: { type: 'boolean', default: false },
      observe: { type: 'boolean', default: false },
      ferretdb: { type: 'boolean', default: false },
      servers: { type: 'string' },
      'no-redis': { type: 'boolean', default: false },
      'no-mongodb': { type: 'boolean', default: false },
      'no-lmdb': { type: 'boolean', default: false },
      'cold-pages': { type: 'boolean', default: false },
    },
  });
  const settings: RunSettings = values.quick
    ? QUICK
    : {
        rounds: positive('rounds', values.rounds, 3),
        seed: 10_000,
        warmup: positive('warmup', values.warmup, 2),
        duration: positive('duration', values.duration, 10),
        scaleSizes: [1000, 100_000, 1_000_000],
        scaleDuration: positive('scale-duration', values['scale-duration'], 5),
        latencyDuration: positive('latency-duration', values['latency-duration'], 10),
        coldPages: values['cold-pages'],
        tagPlants: 1_000_000,
      };
  const skipStores = new Set(
    (['redis', 'mongodb', 'lmdb'] as const).filter((kind) => values[`no-${kind}`]),
  );
  // FerretDB on SQLite may answer nothing within a 0.5 s slice on a busy machine: --quick (a smoke
  // run that must pass) measures MongoDB only on a server it is given.
  if (values.quick && !process.env.BENCH_MONGODB_URL) skipStores.add('mongodb');
  return {
    quick: values.quick,
    settings,
    chosen: values.servers === undefined ? undefined : new Set(values.servers.split(',')),
    spinUs: values.spin === undefined ? undefined : positive('spin', values.spin, 0),
    baselines: values.baseline,
    limits: values.limits,
    observe: values.observe,
    ferretdb: values.ferretdb,
    scaling: !values['no-scaling'],
    tags: !values['no-tags'],
    latency: !values['no-latency'],
    skipStores,
  };
}
