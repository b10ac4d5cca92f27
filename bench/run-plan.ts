import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PEER_SERVERS } from './peers.js';
import { ROOT } from './proc.js';
import type { RunOptions } from './run-options.js';
import type { BenchStore } from './stores.js';

// What a run is: the servers it measures, each a process started from a command line and an
// environment, and the stores its scaling fills.

export interface ServerSpec {
  key: string;
  label: string;
  nodeArgs: string[];
  env?: Record<string, string>;
  /** Cores other than the servers' one (taskset -c), e.g. '0,1' for more than one worker. */
  cores?: string;
  /** The store server behind it, when the run started it: its CPU per request is reported too. */
  store?: BenchStore;
  /** The server its ratios are taken against, when not the service on memory. */
  base?: ServerSpec;
}

interface StoreKind {
  /** The variables that put the service on the store, for the server `key` (its own directory, for the embedded store). */
  env: (store: BenchStore, key: string) => Record<string, string>;
  /** Whether the service also runs with `serve --workers 2` on it (free to use both cores). */
  workers: boolean;
  /** The scaling's sizes of the store, of the run's (1k, 100k, 1M). */
  sizes: (sizes: number[]) => number[];
  /** The harness's StorageOptions at `plants` plants, for `use` ('scale' or 'tags': its own directory, for the embedded store). */
  storage: (store: BenchStore, plants: number, use: string) => Record<string, string>;
  /** Whether the tags scenario runs on it (a filtered page at 1M plants; memory always). */
  tags: boolean;
  /** Embedded (files, no server): its bytes on disk and the service's start-up are measured. */
  embedded: boolean;
  /** Other settings of the service on it, each a server of the rounds compared with the default. */
  variants?: Record<string, Record<string, string>>;
}

const onServer = (variable: string, workers: boolean): StoreKind => ({
  env: (store) => ({ [variable]: store.url }),
  workers,
  sizes: (sizes) => sizes.slice(0, 2),
  storage: (store) => ({ kind: store.kind, url: store.url }),
  tags: false,
  embedded: false,
});

/** The storage kinds the service runs on besides memory. A new kind is one line here (and its store in stores.ts). */
export const STORE_KINDS: Record<BenchStore['kind'], StoreKind> = {
  redis: onServer('REDIS_URL', true),
  mongodb: onServer('MONGODB_URL', false),
  lmdb: {
    env: (store, key) => ({ PLANT_STORE_DATA_DIR: join(store.url, key) }),
    workers: true,
    sizes: (sizes) => [...new Set([sizes[0]!, sizes.at(-1)!])],
    storage: (store, plants, use) => ({
      kind: 'lmdb',
      dataDir: join(store.url, `${use}-${plants}`),
    }),
    tags: true,
    embedded: true,
    // What the flush costs: the same writes answered once committed, before they reach the disk.
    variants: { 'commit-only': { PLANT_STORE_DURABILITY: 'commit-only' } },
  },
};
export const WORKERS = 2;

const TSX = ['--import', 'tsx'];
const SERVE = ['dist/cli.js', 'serve'];

export interface RunPlan {
  service: ServerSpec;
  references: ServerSpec[];
  /** The peers (bench/peers.ts): NestJS on Express and on Fastify, Fastify with the same features. */
  peers: ServerSpec[];
  /** The service on each other store (and with workers where the kind says so). */
  otherStores: ServerSpec[];
  baseline: ServerSpec[];
  limits: ServerSpec[];
  observe: ServerSpec[];
  /** Every server of the rounds, in the order they run and print. */
  servers: ServerSpec[];
  stores: BenchStore[];
}

/** The environment that puts the service `key` on `store` (memory without one). */
export const storageEnv = (store: BenchStore | undefined, key = ''): Record<string, string> =>
  store === undefined
    ? { PLANT_STORE_STORAGE: 'memory' }
    : { PLANT_STORE_STORAGE: store.kind, ...STORE_KINDS[store.kind].env(store, key) };

/** The servers of a run, given its options, the stores it started and the OTLP collector's port. */
export function planRun(
  options: RunOptions,
  stores: BenchStore[],
  collectorPort: number | undefined,
): RunPlan {
  const service: ServerSpec = {
    key: 'service',
    label: 'service',
    nodeArgs: SERVE,
    env: storageEnv(undefined),
  };
  const references: ServerSpec[] = [
    { key: 'koa', label: 'bare Koa', nodeArgs: [...TSX, 'bench/servers/koa.ts'] },
    { key: 'http', label: 'node:http', nodeArgs: [...TSX, 'bench/servers/node-http.ts'] },
    { key: 'fastify', label: 'Fastify', nodeArgs: [...TSX, 'bench/servers/fastify.ts'] },
  ];
  // `--spin N`: bare Koa once more, spinning N µs per request, so that the run shows what N µs of
  // work add to the measured CPU per request here (more than N: see bench/README.md).
  if (options.spinUs !== undefined) {
    references.push({
      key: 'koa-spin',
      label: `bare Koa + ${options.spinUs} µs spin`,
      nodeArgs: references[0]!.nodeArgs,
      env: { BENCH_SPIN_US: String(options.spinUs) },
    });
  }
  const peers = PEER_SERVERS.map((peer) => ({ ...peer }));
  const otherStores = storeServers(stores);
  const baseline = baselineServers(options.baselines, stores);
  const limits = options.limits ? limitServers(stores) : [];
  const observe = collectorPort === undefined ? [] : observeServers(service, collectorPort);
  // `--servers service,koa`: a subset, for quicker comparisons (the service is always included).
  const always = new Set([service, ...observe, ...baseline, ...limits]);
  const chosen = options.chosen;
  const servers = [
    service,
    ...observe,
    ...references,
    ...peers,
    ...otherStores,
    ...baseline,
    ...limits,
  ].filter(
    (server) =>
      chosen === undefined ||
      always.has(server) ||
      chosen.has(server.key) ||
      server.key === 'koa-spin' ||
      chosen.has(server.key.replace(/^service-/, '')),
  );
  return { service, references, peers, otherStores, baseline, limits, observe, servers, stores };
}

function storeServers(stores: BenchStore[]): ServerSpec[] {
  return stores.flatMap((store) => {
    const key = `service-${store.kind}`;
    const one = {
      key,
      label: `service (${store.kind})`,
      nodeArgs: SERVE,
      env: storageEnv(store, key),
      store,
    };
    const kind = STORE_KINDS[store.kind];
    const variants = Object.entries(kind.variants ?? {}).map(([name, env]) => ({
      ...one,
      key: `${key}-${name}`,
      label: `service (${store.kind}, ${name})`,
      env: { ...storageEnv(store, `${key}-${name}`), ...env },
      base: one,
    }));
    if (!kind.workers || cpus().length < 2) return [one, ...variants];
    const workers = {
      ...one,
      key: `${key}-workers`,
      env: storageEnv(store, `${key}-workers`),
      label: `service (${store.kind}, ${WORKERS} workers)`,
      nodeArgs: [...SERVE, '--workers', String(WORKERS)],
      cores: '0,1',
      base: one,
    };
    return [one, ...variants, workers];
  });
}

// `--baseline path/to/main.js`: another build of the service (e.g. `git stash && npm run build &&
// cp -r dist /tmp/base`) joins the rounds, to measure a change against what it replaces.
// `--baseline name=path/to/main.js` names it; `--baseline redis:name=path` runs it on the run's
// Redis (or another store kind), to be compared with the service on that store.
function baselineServers(values: string[], stores: BenchStore[]): ServerSpec[] {
  return values.map((value) => {
    const [named, path] = value.includes('=') ? value.split('=', 2) : ['baseline', value];
    const kinds = Object.keys(STORE_KINDS).join('|');
    const [kind, label] = new RegExp(`^(${kinds}):`).test(named!)
      ? named!.split(':', 2)
      : ['', named];
    const store = stores.find((candidate) => candidate.kind === kind);
    if (kind !== '' && store === undefined)
      throw new Error(`--baseline ${value}: no ${kind} in this run`);
    return {
      key: named!,
      label: label!,
      nodeArgs: [path!],
      env: storageEnv(store),
      ...(store && { store }),
    };
  });
}

// `--limits`: the service on the run's Redis with PLANT_STORE_RATE_LIMIT set (BENCH_RATE_LIMIT,
// default 1000000: high enough that nothing is refused, so every request pays for the limit), and
// the same with the failure budget off (PLANT_STORE_AUTH_FAILURE_LIMIT=0, against its default 10);
// with BENCH_BASELINE_REF=<git ref>, that commit, built into a temporary directory over this
// checkout's node_modules, runs on the same Redis with the same limit: an A/B in one run.
function limitServers(stores: BenchStore[]): ServerSpec[] {
  const store = stores.find((candidate) => candidate.kind === 'redis');
  if (store === undefined) throw new Error('--limits needs Redis in this run');
  const env = {
    ...storageEnv(store),
    PLANT_STORE_RATE_LIMIT: process.env.BENCH_RATE_LIMIT || '1000000',
  };
  const servers: ServerSpec[] = [
    { key: 'limits', label: 'redis, rate limit', nodeArgs: SERVE, env, store },
    {
      key: 'limits-no-budget',
      label: 'redis, rate limit, no budget',
      nodeArgs: SERVE,
      env: { ...env, PLANT_STORE_AUTH_FAILURE_LIMIT: '0' },
      store,
    },
  ];
  const ref = process.env.BENCH_BASELINE_REF;
  if (ref) {
    servers.push({
      key: 'limits-before',
      label: `redis, rate limit, ${ref}`,
      nodeArgs: [buildRef(ref), 'serve'],
      env,
      store,
    });
  }
  return servers;
}

/** Builds a commit's dist/ in a temporary directory (removed at exit); the path of its cli.js. */
function buildRef(ref: string): string {
  const commit = spawnSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (commit.status !== 0) throw new Error(`BENCH_BASELINE_REF ${ref} is not a commit here`);
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-bench-ref-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const archive = spawnSync('git', ['archive', commit.stdout.trim()], {
    cwd: ROOT,
    maxBuffer: 2 ** 30,
  });
  const untar = spawnSync('tar', ['-x', '-C', dir], { input: archive.stdout });
  if (archive.status !== 0 || untar.status !== 0) throw new Error(`cannot extract ${ref}`);
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const built = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
    cwd: dir,
    encoding: 'utf8',
  });
  if (built.status !== 0)
    throw new Error(`building ${ref} failed:\n${built.stdout}${built.stderr}`);
  return join(dir, 'dist', 'cli.js');
}

// `--observe`: the service twice more, with the access log and metrics off, and with tracing on
// (exporting every span over OTLP/HTTP to a collector of the run that only answers 200), to
// measure what observability costs per request against the defaults.
function observeServers(service: ServerSpec, port: number): ServerSpec[] {
  return [
    {
      key: 'service-quiet',
      label: 'service, log+metrics off',
      nodeArgs: service.nodeArgs,
      env: { ...service.env, PLANT_STORE_ACCESS_LOG: 'off', PLANT_STORE_METRICS: 'off' },
    },
    {
      key: 'service-traced',
      label: 'service, tracing on',
      nodeArgs: service.nodeArgs,
      env: {
        ...service.env,
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
        // Every span exported, in batches a fifth of a second apart, none dropped.
        OTEL_BSP_SCHEDULE_DELAY: '200',
        OTEL_BSP_MAX_QUEUE_SIZE: '200000',
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '10000',
      },
    },
  ];
}

/** The servers of the fixed-rate latency: the service, the references and the peers, on memory. */
export const latencyServers = (plan: RunPlan): ServerSpec[] =>
  plan.servers.filter(
    (server) =>
      server === plan.service ||
      (plan.references.includes(server) && server.key !== 'koa-spin') ||
      plan.peers.includes(server),
  );

export interface ScaleTarget {
  name: string;
  /** A StorageOptions at that many plants for `use` ('scale' or 'tags'), as the service's configuration has it. */
  storage: (plants: number, use?: string) => Record<string, string>;
  sizes: number[];
  /** Whether the tags scenario runs on it. */
  tags: boolean;
  /** For an embedded store, the environment of `serve` on the store filled with that many plants (its start-up is measured). */
  serveEnv?: (plants: number) => Record<string, string>;
}

// Stores on a server at 1k and 100k, FerretDB on SQLite at 1k only (it fills at a few hundred a
// second); the embedded store at 1k and 1M. The tags scenario runs on memory and on the kinds
// whose `tags` says so.
export const scaleTargets = (plan: RunPlan, options: RunOptions): ScaleTarget[] => [
  {
    name: 'memory',
    storage: () => ({ kind: 'memory' }),
    sizes: options.settings.scaleSizes,
    tags: true,
  },
  ...plan.stores
    .filter((store) => options.chosen === undefined || options.chosen.has(store.kind))
    .map((store) => {
      const kind = STORE_KINDS[store.kind];
      const sizes = kind.sizes(options.settings.scaleSizes);
      return {
        name: store.kind,
        storage: (plants: number, use = 'scale') => kind.storage(store, plants, use),
        sizes: store.what.startsWith('ferretdb') ? sizes.slice(0, 1) : sizes,
        tags: kind.tags,
        ...(kind.embedded && {
          serveEnv: (plants: number) => storageEnv(store, `scale-${plants}`),
        }),
      };
    }),
];
