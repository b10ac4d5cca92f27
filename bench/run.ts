import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { BENCH_TOKEN, benchTokens } from './common.js';
import type { LoadJob, LoadResult, PacedJob } from './load.js';
import {
  cpuSeconds,
  median,
  onServerCore,
  pinning,
  ROOT,
  startLoader,
  rssMb,
  startServer as startProcess,
  stopServer,
  type Running,
} from './proc.js';
import { NEST_BUILD, NEST_KEYS, PEER_SERVERS } from './peers.js';
import { benchStores, type BenchStore } from './stores.js';

// `npm run bench`: the service against bare Koa, bare node:http and Fastify, and against the peers a
// team would otherwise build (NestJS on Express and on Fastify, Fastify with the same features),
// interleaved in rounds, each server in its own process and autocannon in another; then latency at
// a fixed rate, and list latency and memory as the memory store grows. See bench/README.md.

const T0 = Date.now();
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const numberArg = (name: string, fallback: number): number => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : Number(args[at + 1]);
};

const SETTINGS = quick
  ? {
      rounds: 1,
      seed: 200,
      warmup: 0.2,
      duration: 0.5,
      scaleSizes: [1000],
      scaleDuration: 0.5,
      latencyDuration: 0.5,
    }
  : {
      rounds: numberArg('--rounds', 3),
      seed: 10_000,
      warmup: numberArg('--warmup', 2),
      duration: numberArg('--duration', 10),
      scaleSizes: [1000, 100_000, 1_000_000],
      scaleDuration: numberArg('--scale-duration', 5),
      latencyDuration: numberArg('--latency-duration', 10),
    };
const CONNECTIONS = 50;
const SLICE_SECONDS = 1;
const SCALE_CONNECTIONS = 10;
const LIST_PATH = '/plants?limit=20';
const skipScaling = args.includes('--no-scaling');
const skipLatency = args.includes('--no-latency');

// ---- servers ----

interface ServerSpec {
  key: string;
  label: string;
  nodeArgs: string[];
  env?: Record<string, string>;
  /** Cores other than the servers' one (taskset -c), e.g. '0,1' for more than one worker. */
  cores?: string;
  /** The store server behind it, when the run started it: its CPU per request is reported too. */
  store?: BenchStore;
}

const TSX = ['--import', 'tsx'];
const SERVICE: ServerSpec = {
  key: 'service',
  label: 'service',
  nodeArgs: ['dist/cli.js', 'serve'],
  env: { PLANT_STORE_STORAGE: 'memory' },
};
const REFERENCES: ServerSpec[] = [
  { key: 'koa', label: 'bare Koa', nodeArgs: [...TSX, 'bench/servers/koa.ts'] },
  { key: 'http', label: 'node:http', nodeArgs: [...TSX, 'bench/servers/node-http.ts'] },
  { key: 'fastify', label: 'Fastify', nodeArgs: [...TSX, 'bench/servers/fastify.ts'] },
];
// The peers (bench/peers.ts): NestJS on Express and on Fastify, Fastify with the same features.
const PEERS: ServerSpec[] = PEER_SERVERS.map((peer) => ({ ...peer }));
const NEST = NEST_KEYS;
// `--spin N`: bare Koa once more, spinning N µs per request, so that the run shows what N µs of
// work add to the measured CPU per request here (more than N: see bench/README.md).
const spinAt = args.indexOf('--spin');
const SPIN_US = spinAt === -1 ? undefined : Number(args[spinAt + 1]);
if (SPIN_US !== undefined && !(SPIN_US > 0)) throw new Error('--spin takes a number of µs above 0');
if (SPIN_US !== undefined) {
  REFERENCES.push({
    key: 'koa-spin',
    label: `bare Koa + ${SPIN_US} µs spin`,
    nodeArgs: REFERENCES[0]!.nodeArgs,
    env: { BENCH_SPIN_US: String(SPIN_US) },
  });
}
// The service on another store joins the rounds: BENCH_REDIS_URL / BENCH_MONGODB_URL, or a private
// server the run starts (see stores.ts); `--no-redis` / `--no-mongodb` leave one out. On Redis the
// service also runs with two workers (`serve --workers 2`, free to use both cores).
const WORKERS = 2;
let STORES: BenchStore[] = [];
let OTHER_STORES: ServerSpec[] = [];
const VARIABLE = { redis: 'REDIS_URL', mongodb: 'MONGODB_URL' } as const;
function storeServers(stores: BenchStore[]): ServerSpec[] {
  return stores.flatMap((store) => {
    const env = { PLANT_STORE_STORAGE: store.kind, [VARIABLE[store.kind]]: store.url };
    const one = {
      key: `service-${store.kind}`,
      label: `service (${store.kind})`,
      nodeArgs: ['dist/cli.js', 'serve'],
      env,
      store,
    };
    if (store.kind !== 'redis' || cpus().length < 2) return [one];
    const workers = {
      ...one,
      key: `service-${store.kind}-workers`,
      label: `service (${store.kind}, ${WORKERS} workers)`,
      nodeArgs: ['dist/cli.js', 'serve', '--workers', String(WORKERS)],
      cores: '0,1',
    };
    return [one, workers];
  });
}
// `--baseline path/to/main.js`: another build of the service (e.g. `git stash && npm run build &&
// cp -r dist /tmp/base`) joins the rounds, to measure a change against what it replaces.
// Repeatable; `--baseline name=path/to/main.js` names it; `--baseline redis:name=path` runs it on the
// run's Redis (or `mongodb:`), to be compared with the service on that store.
const BASELINE_ARGS = args.flatMap((arg, i) => (arg === '--baseline' ? [args[i + 1]!] : []));
let BASELINE: ServerSpec[] = [];
const baselineServers = (): ServerSpec[] =>
  BASELINE_ARGS.map((value) => {
    const [named, path] = value.includes('=') ? value.split('=', 2) : ['baseline', value];
    const [kind, label] = /^(redis|mongodb):/.test(named!) ? named!.split(':', 2) : ['', named];
    const store = STORES.find((candidate) => candidate.kind === kind);
    if (kind !== '' && store === undefined)
      throw new Error(`--baseline ${value}: no ${kind} in this run`);
    const env =
      store === undefined
        ? { PLANT_STORE_STORAGE: 'memory' }
        : { PLANT_STORE_STORAGE: store.kind, [VARIABLE[store.kind]]: store.url };
    return { key: named!, label: label!, nodeArgs: [path!], env, ...(store && { store }) };
  });
// `--limits`: the service on the run's Redis with PLANT_STORE_RATE_LIMIT set (BENCH_RATE_LIMIT,
// default 1000000: high enough that nothing is refused, so every request pays for the limit), and
// the same with the failure budget off (PLANT_STORE_AUTH_FAILURE_LIMIT=0, against its default 10);
// with BENCH_BASELINE_REF=<git ref>, that commit, built into a temporary directory over this
// checkout's node_modules, runs on the same Redis with the same limit: an A/B in one run.
const limitsAB = args.includes('--limits');
let LIMITS: ServerSpec[] = [];
function limitServers(): ServerSpec[] {
  if (!limitsAB) return [];
  const store = STORES.find((candidate) => candidate.kind === 'redis');
  if (store === undefined) throw new Error('--limits needs Redis in this run');
  const env = {
    PLANT_STORE_STORAGE: 'redis',
    REDIS_URL: store.url,
    PLANT_STORE_RATE_LIMIT: process.env.BENCH_RATE_LIMIT || '1000000',
  };
  const servers: ServerSpec[] = [
    { key: 'limits', label: 'redis, rate limit', nodeArgs: SERVICE.nodeArgs, env, store },
    {
      key: 'limits-no-budget',
      label: 'redis, rate limit, no budget',
      nodeArgs: SERVICE.nodeArgs,
      env: { ...env, PLANT_STORE_AUTH_FAILURE_LIMIT: '0' },
      store,
    },
  ];
  const ref = process.env.BENCH_BASELINE_REF;
  if (ref) {
    const cli = buildRef(ref);
    servers.push({
      key: 'limits-before',
      label: `redis, rate limit, ${ref}`,
      nodeArgs: [cli, 'serve'],
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
// (exporting every span over OTLP/HTTP to a collector here that only answers 200), to measure what
// observability costs per request against the defaults (access log and metrics on, tracing off).
const observe = args.includes('--observe');
const collector = createServer((request, response) => {
  request.resume();
  request.on('end', () =>
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
  );
});
const OBSERVE: ServerSpec[] = [];
async function observeServers(): Promise<ServerSpec[]> {
  if (!observe) return [];
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  const { port } = collector.address() as { port: number };
  return [
    {
      key: 'service-quiet',
      label: 'service, log+metrics off',
      nodeArgs: SERVICE.nodeArgs,
      env: { ...SERVICE.env, PLANT_STORE_ACCESS_LOG: 'off', PLANT_STORE_METRICS: 'off' },
    },
    {
      key: 'service-traced',
      label: 'service, tracing on',
      nodeArgs: SERVICE.nodeArgs,
      env: {
        ...SERVICE.env,
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
        // Every span exported, in batches a fifth of a second apart, none dropped.
        OTEL_BSP_SCHEDULE_DELAY: '200',
        OTEL_BSP_MAX_QUEUE_SIZE: '200000',
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '10000',
      },
    },
  ];
}
// `--servers service,koa`: a subset, for quicker comparisons (the service is always included).
const serversAt = args.indexOf('--servers');
const chosen = serversAt === -1 ? undefined : new Set(args[serversAt + 1]!.split(','));
let SERVERS: ServerSpec[] = [];
const chooseServers = (): ServerSpec[] =>
  [SERVICE, ...OBSERVE, ...REFERENCES, ...PEERS, ...OTHER_STORES, ...BASELINE, ...LIMITS].filter(
    (server) =>
      chosen === undefined ||
      server === SERVICE ||
      OBSERVE.includes(server) ||
      BASELINE.includes(server) ||
      LIMITS.includes(server) ||
      chosen.has(server.key) ||
      server.key === 'koa-spin' ||
      chosen.has(server.key.replace(/^service-/, '')),
  );

let runCounter = 0;

async function startServer(
  nodeArgs: string[],
  env: Record<string, string>,
  cores = pinning?.server ?? '',
): Promise<Running> {
  // Each start gets its own tenant, so that stores that outlive the process never see an id twice.
  const tenant = `bench-${process.pid}-${++runCounter}`;
  return startProcess(nodeArgs, { PLANT_STORE_TOKENS: benchTokens(tenant), ...env }, cores);
}

// ---- the load generator process ----

const { ready: loaderReady, ask, stop: stopLoader } = startLoader();
const load = (job: LoadJob | PacedJob) => ask<LoadResult>(job);
const collect = (tag: string) => ask<{ p50: number; p99: number }>({ kind: 'collect', tag });

const problems: string[] = [];
// What a store known to be too slow here (FerretDB on SQLite, run on request) fails to answer: a
// limitation of the run, printed as such, not a problem that voids the other figures.
const limitations: string[] = [];
const known = (store: BenchStore | undefined) => store?.what.startsWith('ferretdb') === true;

/** Every request of a run must have succeeded, or the figures mean nothing. */
function check(what: string, result: LoadResult, store?: BenchStore): LoadResult {
  if (result.non2xx > 0 || result.errors > 0 || result.ok === 0) {
    (known(store) ? limitations : problems).push(
      `${what}: ${result.ok} ok, ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`,
    );
  }
  return result;
}

async function get(url: string, path: string): Promise<{ status: number; text: string }> {
  const response = await fetch(url + path, { headers: { authorization: `Bearer ${BENCH_TOKEN}` } });
  return { status: response.status, text: await response.text() };
}

// ---- statistics and formatting ----

// A figure nothing was measured for (no 2xx answer in a slice) prints as '-'.
const fixed = (value: number | null | undefined, digits: number) =>
  typeof value !== 'number' || Number.isNaN(value) ? '-' : value.toFixed(digits);
const pad = (text: string, width: number) => text.padEnd(width);
const lpad = (text: string, width: number) => text.padStart(width);

// ---- the rounds ----

type Workload = 'GET' | 'POST';
interface Sample {
  rps: number;
  /** CPU time the server spent per request served, in microseconds. */
  cpuUs: number;
  /** CPU time its store server (Redis, MongoDB) spent per request, when the run started it. */
  storeUs: number;
  p50: number;
  p99: number;
  rss: number;
}
const samples = new Map<string, Sample[]>(); // `${server.key} ${workload}` -> one per round
const record = (server: ServerSpec, workload: Workload, sample: Sample) => {
  const key = `${server.key} ${workload}`;
  samples.set(key, [...(samples.get(key) ?? []), sample]);
};

/**
 * One round: every server started fresh and seeded, then each workload measured on each server in
 * turn (A B C D for GET, then A B C D for POST), so that the measurements compared in a ratio are
 * seconds apart, not minutes. Idle servers wait on their own core; only one is under load at a time.
 */
async function measureRound(round: number): Promise<void> {
  const running = new Map<ServerSpec, Running>();
  try {
    for (const server of SERVERS) {
      const what = `round ${round} ${server.label}`;
      const started = await startSeeded(server, running, what);
      const page = await get(started.url, LIST_PATH);
      const plants = page.status === 200 ? (JSON.parse(page.text) as unknown[]) : [];
      if (plants.length !== 20) {
        (known(server.store) ? limitations : problems).push(
          `${what}: GET ${LIST_PATH} answered ${page.status} ${page.text.slice(0, 200)}`,
        );
      }
    }
    for (const workload of ['GET', 'POST'] as const) {
      const jobs = new Map<ServerSpec, Extract<LoadJob, { duration: number }>>();
      for (const [server, { url }] of running) {
        const job: Extract<LoadJob, { duration: number }> =
          workload === 'GET'
            ? { kind: 'get', url, paths: [LIST_PATH], connections: CONNECTIONS, duration: 0 }
            : { kind: 'post', url, connections: CONNECTIONS, duration: 0 };
        jobs.set(server, job);
        await load({ ...job, duration: SETTINGS.warmup });
      }
      // The measured seconds alternate between the servers in slices, so a burst of load from
      // elsewhere on the machine falls on all of them alike.
      const slices = Math.max(1, Math.round(SETTINGS.duration / SLICE_SECONDS));
      const totals = new Map<
        ServerSpec,
        { requests: number; seconds: number; cpu: number; storeCpu: number; served: number }
      >();
      for (let slice = 0; slice < slices; slice++) {
        for (const [server, job] of jobs) {
          const what = `round ${round} ${server.label} ${workload}`;
          const duration = SETTINGS.duration / slices;
          const pid = running.get(server)!.child.pid;
          const cpuBefore = cpuSeconds(pid);
          const storeBefore = cpuSeconds(server.store?.pid);
          const result = check(
            what,
            await load({ ...job, duration, tag: server.key }),
            server.store,
          );
          const cpu = cpuSeconds(pid) - cpuBefore;
          const storeCpu = cpuSeconds(server.store?.pid) - storeBefore;
          const total = totals.get(server) ?? {
            requests: 0,
            seconds: 0,
            cpu: 0,
            storeCpu: 0,
            served: 0,
          };
          totals.set(server, {
            requests: total.requests + result.requests,
            seconds: total.seconds + result.seconds,
            cpu: total.cpu + cpu,
            storeCpu: total.storeCpu + storeCpu,
            served: total.served + result.ok,
          });
        }
      }
      for (const [server, { child }] of running) {
        const { requests, seconds, cpu, storeCpu, served } = totals.get(server)!;
        const { p50, p99 } = await collect(server.key);
        record(server, workload, {
          rps: requests / seconds,
          p50,
          p99,
          rss: rssMb(child.pid),
          cpuUs: (cpu / served) * 1e6,
          storeUs: (storeCpu / served) * 1e6,
        });
        process.stderr.write(
          `  round ${round} ${server.label} ${workload}: ${(requests / seconds).toFixed(0)} req/s (${((Date.now() - T0) / 1000).toFixed(0)} s)\n`,
        );
      }
    }
  } finally {
    await Promise.all([...running.values()].map(stopServer));
  }
}

// ---- latency at a fixed rate ----

interface LatencyRow {
  server: ServerSpec;
  workload: Workload;
  rps: number;
  p50: number;
  p99: number;
}

/** The servers of the fixed-rate latency: the service, the references and the peers, on memory. */
const latencyServers = (): ServerSpec[] =>
  SERVERS.filter(
    (server) =>
      server === SERVICE ||
      (REFERENCES.includes(server) && server.key !== 'koa-spin') ||
      PEERS.includes(server),
  );

/**
 * Starts the server (kept in `running`, which the caller stops) and seeds it with the plants every
 * workload reads; a seed that is not all 2xx is reported as `<what> seed`.
 */
async function startSeeded(
  server: ServerSpec,
  running: Map<ServerSpec, Running>,
  what: string,
): Promise<Running> {
  const started = await startServer(server.nodeArgs, server.env ?? {}, server.cores);
  running.set(server, started);
  const seed = await load({
    kind: 'seed',
    url: started.url,
    connections: 32,
    from: 1,
    count: SETTINGS.seed,
  });
  check(`${what} seed`, seed, server.store);
  return started;
}

/**
 * Every server started fresh and seeded, then offered the same rate, evenly spaced over the same
 * connections, in 1 s slices alternating between the servers as in the rounds: p50 and p99 at a
 * load every one of them sustains, instead of at each one's own saturation.
 */
async function measureLatency(rates: Record<Workload, number>): Promise<LatencyRow[]> {
  const running = new Map<ServerSpec, Running>();
  const rows: LatencyRow[] = [];
  try {
    for (const server of latencyServers()) {
      await startSeeded(server, running, `latency ${server.label}`);
    }
    for (const workload of ['GET', 'POST'] as const) {
      const job = (url: string, duration: number, tag?: string): PacedJob => ({
        kind: 'paced',
        method: workload,
        url,
        path: workload === 'GET' ? LIST_PATH : '/plants',
        connections: CONNECTIONS,
        duration,
        rate: rates[workload],
        ...(tag !== undefined && { tag }),
      });
      for (const [server, { url }] of running) {
        check(
          `latency ${server.label} ${workload} warm-up`,
          await load(job(url, Math.min(SETTINGS.warmup, 1))),
        );
      }
      const slices = Math.max(1, Math.round(SETTINGS.latencyDuration / SLICE_SECONDS));
      const served = new Map<ServerSpec, number>();
      for (let slice = 0; slice < slices; slice++) {
        for (const [server, { url }] of running) {
          const duration = SETTINGS.latencyDuration / slices;
          const tag = `latency ${server.key}`;
          const result = check(
            `latency ${server.label} ${workload}`,
            await load(job(url, duration, tag)),
          );
          served.set(server, (served.get(server) ?? 0) + result.requests);
        }
      }
      for (const server of running.keys()) {
        const { p50, p99 } = await collect(`latency ${server.key}`);
        const rps = (served.get(server) ?? 0) / SETTINGS.latencyDuration;
        rows.push({ server, workload, rps, p50, p99 });
        process.stderr.write(
          `  latency ${server.label} ${workload}: p50 ${fixed(p50, 2)} p99 ${fixed(p99, 2)} ms (${((Date.now() - T0) / 1000).toFixed(0)} s)\n`,
        );
      }
    }
  } finally {
    await Promise.all([...running.values()].map(stopServer));
  }
  return rows;
}

// ---- scaling ----

interface ScaleTarget {
  name: string;
  /** A StorageOptions, as the service's configuration has it. */
  storage: Record<string, string>;
  sizes: number[];
}
// Stores on a server at 1k and 100k; FerretDB on SQLite at 1k only (it fills at a few hundred a second).
const scaleTargets = (): ScaleTarget[] => [
  { name: 'memory', storage: { kind: 'memory' }, sizes: SETTINGS.scaleSizes },
  ...STORES.filter((store) => chosen === undefined || chosen.has(store.kind)).map((store) => ({
    name: store.kind,
    storage: { kind: store.kind, url: store.url },
    sizes: SETTINGS.scaleSizes.slice(0, store.what.startsWith('ferretdb') ? 1 : 2),
  })),
];

interface ScaleRow {
  store: string;
  plants: number;
  rps: number;
  p50: number;
  p99: number;
  rss: number;
  mbPerMillion: number;
  seedMs: number;
}

/**
 * Every size of one store side by side, each in its own harness process (the real service, filled
 * in-process), with the measured seconds alternating between them in slices as in the rounds.
 */
async function measureScale(target: ScaleTarget): Promise<ScaleRow[]> {
  const running: {
    plants: number;
    server: Running;
    seeded: { rssBefore: number; rssAfter: number; seedMs: number };
  }[] = [];
  try {
    for (const plants of target.sizes) {
      const server = await startServer(['--expose-gc', ...TSX, 'bench/servers/scale.ts'], {
        BENCH_STORAGE: JSON.stringify(target.storage),
        BENCH_PLANTS: String(plants),
        LOG_LEVEL: 'warn',
      });
      const line = /bench-scale: (\{.*\})/.exec(server.output())?.[1];
      running.push({ plants, server, seeded: JSON.parse(line ?? '{}') });
    }
    const jobs = running.map(({ plants, server }) => {
      // The first page, and one from the middle of the store (the cursor holds the id before it).
      const middle = Buffer.from(`1:${Math.floor(plants / 2)}`).toString('base64url');
      const paths = [LIST_PATH, `${LIST_PATH}&cursor=${middle}`];
      return {
        kind: 'get',
        url: server.url,
        paths,
        connections: SCALE_CONNECTIONS,
        duration: 0,
      } as const;
    });
    for (const job of jobs) await load({ ...job, duration: Math.min(SETTINGS.warmup, 1) });
    const slices = Math.max(1, Math.round(SETTINGS.scaleDuration / SLICE_SECONDS));
    const totals = jobs.map(() => ({ requests: 0, seconds: 0 }));
    for (let slice = 0; slice < slices; slice++) {
      for (const [i, job] of jobs.entries()) {
        const what = `scaling ${target.name} ${running[i]!.plants}`;
        const duration = SETTINGS.scaleDuration / slices;
        const store = STORES.find((candidate) => candidate.kind === target.name);
        const result = check(what, await load({ ...job, duration, tag: what }), store);
        totals[i]!.requests += result.requests;
        totals[i]!.seconds += result.seconds;
      }
    }
    const rows: ScaleRow[] = [];
    for (const [i, { plants, server, seeded }] of running.entries()) {
      const what = `scaling ${target.name} ${plants}`;
      const { p50, p99 } = await collect(what);
      const rps = totals[i]!.requests / totals[i]!.seconds;
      process.stderr.write(
        `  ${what}: ${rps.toFixed(0)} req/s (${((Date.now() - T0) / 1000).toFixed(0)} s)\n`,
      );
      rows.push({
        store: target.name,
        plants,
        rps,
        p50,
        p99,
        rss: rssMb(server.child.pid),
        mbPerMillion: ((seeded.rssAfter - seeded.rssBefore) / 2 ** 20 / plants) * 1e6,
        seedMs: seeded.seedMs,
      });
    }
    return rows;
  } finally {
    await Promise.all(running.map(({ server }) => stopServer(server)));
  }
}

// ---- main ----

async function main(): Promise<void> {
  if (!existsSync(`${ROOT}dist/cli.js`))
    throw new Error('dist/cli.js is missing: run `npm run build` first (npm run bench does)');
  if (!existsSync(`${ROOT}${NEST_BUILD}/main-express.js`))
    throw new Error(
      `${NEST_BUILD} is missing: run \`npm run bench:peers\` first (npm run bench does)`,
    );
  await loaderReady;
  const started = Date.now();
  const out: string[] = [];
  const print = (line = '') => {
    out.push(line);
    console.log(line);
  };

  print(`plant-store bench${quick ? ' (--quick)' : ''}: ${new Date().toISOString()}`);
  print(
    `machine: ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GB, Node ${process.version}, ${process.platform}`,
  );
  print(
    pinning
      ? `pinned: yes (servers on core ${pinning.server}, autocannon on core ${pinning.load})`
      : 'pinned: no (taskset unavailable or fewer than 2 cores)',
  );
  const skip = new Set(['redis', 'mongodb'].filter((kind) => args.includes(`--no-${kind}`)));
  // FerretDB on SQLite may answer nothing within a 0.5 s slice on a busy machine: --quick (a smoke
  // run that must pass) measures MongoDB only on a server it is given.
  if (quick && !process.env.BENCH_MONGODB_URL) skip.add('mongodb');
  // A store server the run starts shares the servers' core, never the load generator's (where it
  // would slow autocannon unaccounted); FerretDB only on request (`--ferretdb`).
  const storeNotes: string[] = [];
  STORES = await benchStores(onServerCore, skip, {
    ferretdb: args.includes('--ferretdb'),
    notes: storeNotes,
  });
  OTHER_STORES = storeServers(STORES);
  BASELINE = baselineServers();
  LIMITS = limitServers();
  OBSERVE.push(...(await observeServers()));
  SERVERS = chooseServers();
  for (const store of STORES) {
    print(
      `store: ${store.kind} ${store.what}${store.pid === undefined ? '' : pinning ? `, own server on core ${pinning.server} with the servers` : ', own server'}`,
    );
  }
  for (const note of storeNotes) print(`store: ${note}`);
  print(
    `workloads: GET ${LIST_PATH} on ${SETTINGS.seed} seeded plants, POST /plants with unique ids; ${CONNECTIONS} connections, ${SETTINGS.warmup} s warm-up then ${SETTINGS.duration} s each (in ${SLICE_SECONDS} s slices, servers alternating); ${SETTINGS.rounds} round(s)`,
  );
  print();
  if (pinning) spawnSync('taskset', ['-a', '-pc', pinning.load, String(process.pid)]);

  for (let round = 1; round <= SETTINGS.rounds; round++) {
    await measureRound(round);
  }
  // Each store server stops once nothing needs it: after the rounds, or after its own scaling.
  const scaled = skipScaling ? [] : scaleTargets().map((target) => target.name);
  await Promise.all(STORES.filter((store) => !scaled.includes(store.kind)).map((s) => s.stop()));

  print(
    `${pad('server', 28)}${pad('workload', 10)}${lpad('req/s', 9)}${lpad('p50 ms', 9)}${lpad('p99 ms', 9)}${lpad('RSS MB', 9)}${lpad('CPU µs/req', 12)}${lpad('store µs/req', 14)}   req/s per round`,
  );
  for (const workload of ['GET', 'POST'] as const) {
    for (const server of SERVERS) {
      const rows = samples.get(`${server.key} ${workload}`) ?? [];
      print(
        `${pad(server.label, 28)}${pad(workload, 10)}${lpad(fixed(median(rows.map((r) => r.rps)), 0), 9)}${lpad(fixed(median(rows.map((r) => r.p50)), 2), 9)}${lpad(fixed(median(rows.map((r) => r.p99)), 2), 9)}${lpad(fixed(median(rows.map((r) => r.rss)), 0), 9)}${lpad(fixed(median(rows.map((r) => r.cpuUs)), 1), 12)}${lpad(fixed(median(rows.map((r) => r.storeUs)), 1), 14)}   ${rows.map((r) => r.rps.toFixed(0)).join(' ')}`,
      );
    }
  }
  print();

  // Ratios are taken within a round (same minute, same machine load), then summarised.
  const ratios = (
    numerator: string,
    denominator: string,
    workload: Workload,
    of: (sample: Sample) => number = (sample) => sample.rps,
  ): number[] => {
    const a = samples.get(`${numerator} ${workload}`) ?? [];
    const b = samples.get(`${denominator} ${workload}`) ?? [];
    return a.map((sample, i) => of(sample) / (b[i] === undefined ? Number.NaN : of(b[i])));
  };
  // CPU efficiency: requests per CPU-second, which other processes on the machine disturb far
  // less than requests per wall-clock second.
  const efficiency = (sample: Sample) => 1 / sample.cpuUs;
  // The same, counting the CPU of the store server the run started (Redis on the servers' core).
  const withStore = (sample: Sample) =>
    1 / (sample.cpuUs + (Number.isNaN(sample.storeUs) ? 0 : sample.storeUs));
  const summary = (values: number[]) => {
    const sorted = values.filter((v) => !Number.isNaN(v)).sort((x, y) => x - y);
    return `${fixed(sorted[0] ?? Number.NaN, 2)} / ${fixed(median(sorted), 2)} / ${fixed(sorted.at(-1) ?? Number.NaN, 2)}`;
  };
  print(
    `ratios per round, min / median / max of ${SETTINGS.rounds}: of req/s, and of requests per CPU-second of the server`,
  );
  for (const workload of ['GET', 'POST'] as const) {
    for (const reference of [...REFERENCES, ...PEERS, ...BASELINE].filter((r) =>
      SERVERS.includes(r),
    )) {
      // A baseline on a store is compared with the service on the same store.
      const [own, ownLabel] =
        reference.store === undefined
          ? ['service', 'service']
          : [`service-${reference.store.kind}`, `service (${reference.store.kind})`];
      print(
        `  ${pad(workload, 5)}${pad(`${ownLabel}/${reference.label}`, 52)}${summary(ratios(own, reference.key, workload))}    per CPU-s ${summary(ratios(own, reference.key, workload, efficiency))}`,
      );
    }
    for (const other of OTHER_STORES.filter((server) => SERVERS.includes(server))) {
      // More than one worker is compared with one process on the same store; the rest with memory.
      const single = OTHER_STORES.find(
        (one) => one.store === other.store && one.cores === undefined,
      );
      const [base, baseLabel] =
        other.cores === undefined ? ['service', 'service (memory)'] : [single!.key, single!.label];
      print(
        `  ${pad(workload, 5)}${pad(`${other.label}/${baseLabel}`, 52)}${summary(ratios(other.key, base, workload))}    per CPU-s ${summary(ratios(other.key, base, workload, efficiency))}${other.store?.pid === undefined ? '' : `    with the store's CPU ${summary(ratios(other.key, base, workload, withStore))}`}`,
      );
    }
    // --limits: the shared limit against the commit before (and against no limit), the failure
    // budget against none; above 1 the first serves more requests per CPU-second.
    const pairs = [
      ['limits', 'limits-before'],
      ['limits', 'service-redis'],
      ['limits-no-budget', 'limits'],
    ];
    for (const [numerator, denominator] of pairs) {
      const [a, b] = [numerator, denominator].map((key) =>
        SERVERS.find((server) => server.key === key),
      );
      if (a === undefined || b === undefined) continue;
      print(
        `  ${pad(workload, 5)}${pad(`${a.label}/${b.label}`, 52)}${summary(ratios(a.key, b.key, workload))}    per CPU-s ${summary(ratios(a.key, b.key, workload, efficiency))}    with the store's CPU ${summary(ratios(a.key, b.key, workload, withStore))}`,
      );
    }
  }
  print();

  // The peers: the service against what a team would otherwise build, per CPU-second of each.
  const measured = (key: string) => SERVERS.some((server) => server.key === key);
  const perCpu = (key: string, workload: Workload) =>
    median(ratios('service', key, workload, efficiency));
  const cpuUs = (key: string, workload: Workload) =>
    median((samples.get(`${key} ${workload}`) ?? []).map((sample) => sample.cpuUs));
  const peers = PEERS.filter((peer) => SERVERS.includes(peer));
  if (peers.length > 0) {
    print(
      `peers: the service against each, per CPU-second of each server (service/peer, min / median / max of ${SETTINGS.rounds} rounds; above 1 the service serves more requests per CPU-second)`,
    );
    print(
      `${pad('server', 22)}${lpad('GET µs/req', 11)}${lpad('POST µs/req', 12)}   ${pad('GET service/peer', 22)}POST service/peer`,
    );
    print(
      `${pad(SERVICE.label, 22)}${lpad(fixed(cpuUs('service', 'GET'), 1), 11)}${lpad(fixed(cpuUs('service', 'POST'), 1), 12)}`,
    );
    for (const peer of peers) {
      const [onGet, onPost] = (['GET', 'POST'] as const).map((workload) =>
        summary(ratios('service', peer.key, workload, efficiency)),
      );
      print(
        `${pad(peer.label, 22)}${lpad(fixed(cpuUs(peer.key, 'GET'), 1), 11)}${lpad(fixed(cpuUs(peer.key, 'POST'), 1), 12)}   ${pad(onGet!, 22)}${onPost}`,
      );
    }
    // What part of the gap to Fastify with the same features is Koa's own: bare Koa against bare
    // Fastify in the same rounds.
    if (measured('koa') && measured('fastify')) {
      const koaCost = (workload: Workload) =>
        median(ratios('koa', 'fastify', workload, efficiency));
      print(
        `  Koa's own cost: bare Koa/bare Fastify per CPU-s GET ${fixed(koaCost('GET'), 2)} POST ${fixed(koaCost('POST'), 2)} (same rounds)`,
      );
    }
    print();
  }

  const scaleRows: ScaleRow[] = [];
  if (!skipScaling) {
    for (const target of scaleTargets()) {
      // A store that cannot even start here (FerretDB still busy with the rounds' backlog) is a
      // problem of the run, printed with the rest, not the end of it: the other rows still count.
      const store = STORES.find((candidate) => candidate.kind === target.name);
      try {
        scaleRows.push(...(await measureScale(target)));
      } catch (error) {
        const reason =
          error instanceof Error
            ? error.message.split('\n').slice(0, 6).join(' | ')
            : String(error);
        (known(store) ? limitations : problems).push(`scaling ${target.name}: ${reason}`);
      } finally {
        await store?.stop();
      }
    }
    print(
      `scaling: GET ${LIST_PATH}, first page and a page from the middle alternately, ${SCALE_CONNECTIONS} connections, ${SETTINGS.scaleDuration} s each in ${SLICE_SECONDS} s slices, sizes alternating; store filled in-process (bench/servers/scale.ts)`,
    );
    print(
      `${pad('store', 10)}${lpad('plants', 10)}${lpad('req/s', 9)}${lpad('p50 ms', 9)}${lpad('p99 ms', 9)}${lpad('RSS MB', 9)}${lpad('MB/1M plants', 14)}${lpad('vs memory', 11)}`,
    );
    for (const row of scaleRows) {
      const memory = scaleRows.find((r) => r.store === 'memory' && r.plants === row.plants);
      const relative =
        row.store === 'memory' || memory === undefined ? '' : fixed(row.rps / memory.rps, 2);
      print(
        `${pad(row.store, 10)}${lpad(String(row.plants), 10)}${lpad(fixed(row.rps, 0), 9)}${lpad(fixed(row.p50, 2), 9)}${lpad(fixed(row.p99, 2), 9)}${lpad(fixed(row.rss, 0), 9)}${lpad(row.store === 'memory' && row.plants >= 100_000 ? fixed(row.mbPerMillion, 0) : '', 14)}${lpad(relative, 11)}`,
      );
    }
    print();
  }

  // Latency at a fixed rate: half the slowest server's median req/s in the rounds, so that every
  // server sustains it; stores have stopped by now.
  const slowest = (workload: Workload) =>
    Math.min(
      ...latencyServers().map((server) =>
        median((samples.get(`${server.key} ${workload}`) ?? []).map((sample) => sample.rps)),
      ),
    );
  const rates = {
    GET: Math.max(10, Math.round(slowest('GET') / 2)),
    POST: Math.max(10, Math.round(slowest('POST') / 2)),
  };
  const latencyRows = skipLatency ? [] : await measureLatency(rates);
  const latencyOf = (key: string, workload: Workload) =>
    latencyRows.find((row) => row.server.key === key && row.workload === workload);
  if (latencyRows.length > 0) {
    print(
      `latency at a fixed rate: GET ${rates.GET} req/s, POST ${rates.POST} req/s offered to every server (half the slowest server's median req/s), evenly spaced over ${CONNECTIONS} keep-alive connections, each latency from the moment its request was due; ${SETTINGS.latencyDuration} s each in ${SLICE_SECONDS} s slices, servers alternating`,
    );
    print(
      `${pad('server', 28)}${pad('workload', 10)}${lpad('req/s', 9)}${lpad('p50 ms', 9)}${lpad('p99 ms', 9)}`,
    );
    for (const workload of ['GET', 'POST'] as const) {
      for (const row of latencyRows.filter((each) => each.workload === workload)) {
        print(
          `${pad(row.server.label, 28)}${pad(workload, 10)}${lpad(fixed(row.rps, 0), 9)}${lpad(fixed(row.p50, 2), 9)}${lpad(fixed(row.p99, 2), 9)}`,
        );
      }
    }
    print();
  }
  // The best NestJS peer: the one serving most per CPU-second (the service's lowest ratio), and
  // the one with the lowest p99 at the fixed rate.
  const nest = NEST.filter(measured);
  const bestPeers = (workload: Workload) =>
    nest.length === 0 ? Number.NaN : Math.min(...nest.map((key) => perCpu(key, workload)));
  const bestP99 = (workload: Workload) =>
    Math.min(...nest.map((key) => latencyOf(key, workload)?.p99 ?? Number.NaN));

  const getRatio = median(ratios('service', 'koa', 'GET'));
  const postRatio = median(ratios('service', 'koa', 'POST'));
  const floor = (workload: Workload) => median(ratios('service', 'http', workload, efficiency));
  const onRedis = (workload: Workload) => median(ratios('service-redis', 'service', workload));
  const workers = (workload: Workload) =>
    median(ratios('service-redis-workers', 'service-redis', workload));
  // What the service adds to bare Koa against what the same features add to bare Fastify, in CPU
  // µs per request within each round (the servers alternate in the same seconds): above 1 the
  // service's additions cost less than Fastify's. A round where the service costs no more than
  // bare Koa counts as met (+Infinity).
  const overheadMeasured = ['koa', 'fastify', 'fastify-features'].every(measured);
  const addedIn = (key: string, base: string, workload: Workload): number[] => {
    const a = samples.get(`${key} ${workload}`) ?? [];
    const b = samples.get(`${base} ${workload}`) ?? [];
    return a.map((sample, i) => sample.cpuUs - (b[i]?.cpuUs ?? Number.NaN));
  };
  const overhead = (workload: Workload): number => {
    const features = addedIn('fastify-features', 'fastify', workload);
    const service = addedIn('service', 'koa', workload);
    return median(
      features.map((added, i) =>
        service[i]! <= 0 ? Number.POSITIVE_INFINITY : added / service[i]!,
      ),
    );
  };
  const overheadText = (workload: Workload): string => {
    const ratio = overhead(workload);
    return ratio === Number.POSITIVE_INFINITY ? 'inf' : fixed(ratio, 2);
  };
  const target = (
    label: string,
    value: number,
    goal: number,
    higherIsBetter: boolean,
    unit = 'x',
  ) => {
    const met = higherIsBetter ? value >= goal : value <= goal;
    const known = !Number.isNaN(value);
    const gap = higherIsBetter ? goal / value - 1 : value / goal - 1;
    print(
      `  ${pad(label, 46)}${value === Number.POSITIVE_INFINITY ? 'inf' : fixed(value, 2)}${unit}  ${!known ? 'not measured' : met ? 'met' : `MISSED by ${(gap * 100).toFixed(0)}%`}`,
    );
  };
  print('targets (printed, never asserted):');
  target('GET list >= 1.0x bare Koa', getRatio, 1.0, true);
  target('POST create >= 0.9x bare Koa', postRatio, 0.9, true);
  if (overheadMeasured) {
    target('GET overhead >= 1.0x (features on Fastify)', overhead('GET'), 1.0, true);
    target('POST overhead >= 1.0x (features on Fastify)', overhead('POST'), 1.0, true);
  }
  // The guard of the overhead's target: no saving may come from making bare Koa's share dearer.
  target('GET per CPU-s >= 0.7x bare Koa (guard)', perCpu('koa', 'GET'), 0.7, true);
  target('POST per CPU-s >= 0.8x bare Koa (guard)', perCpu('koa', 'POST'), 0.8, true);
  if (measured('http')) {
    target('GET per CPU-s >= 0.55x node:http', floor('GET'), 0.55, true);
    target('POST per CPU-s >= 0.50x node:http', floor('POST'), 0.5, true);
  }
  if (nest.length > 0) {
    target('GET per CPU-s >= 1.0x best NestJS peer', bestPeers('GET'), 1.0, true);
    target('POST per CPU-s >= 1.0x best NestJS peer', bestPeers('POST'), 1.0, true);
  }
  if (nest.length > 0 && latencyRows.length > 0) {
    for (const workload of ['GET', 'POST'] as const) {
      target(
        `${workload} p99 at a fixed rate <= best NestJS peer's`,
        (latencyOf('service', workload)?.p99 ?? Number.NaN) / bestP99(workload),
        1.0,
        false,
      );
    }
  }
  if (measured('service-redis')) {
    target('GET on Redis >= 0.65x on memory', onRedis('GET'), 0.65, true);
    target('POST on Redis >= 0.85x on memory', onRedis('POST'), 0.85, true);
  }
  const memoryRows = scaleRows.filter((r) => r.store === 'memory');
  const smallest = memoryRows[0];
  const largest = memoryRows.at(-1);
  if (smallest && largest && largest !== smallest) {
    const label = (n: number) => (n >= 1e6 ? `${n / 1e6}M` : `${n / 1e3}k`);
    target(
      `list p50 at ${label(largest.plants)} within 1.2x of ${label(smallest.plants)}`,
      largest.p50 / smallest.p50,
      1.2,
      false,
    );
    target(
      `list p99 at ${label(largest.plants)} within 1.2x of ${label(smallest.plants)}`,
      largest.p99 / smallest.p99,
      1.2,
      false,
    );
    target('memory <= 200 MB RSS per million plants', largest.mbPerMillion, 200, false, ' MB');
  }
  print(`elapsed: ${((Date.now() - started) / 1000).toFixed(0)} s`);

  if (limitations.length > 0) {
    print();
    for (const limitation of limitations) print(`limitation: ${limitation}`);
  }
  if (problems.length > 0) {
    print();
    print('PROBLEMS (figures above are not trustworthy):');
    for (const problem of problems) print(`  ${problem}`);
    process.exitCode = 1;
  }

  const rounds = `median of ${SETTINGS.rounds} rounds`;
  if (measured('http')) {
    print(
      `bench-floor: GET ${fixed(floor('GET'), 2)} POST ${fixed(floor('POST'), 2)} (service/node:http per CPU-s, ${rounds})`,
    );
  }
  if (measured('service-redis')) {
    print(
      `bench-redis: GET ${fixed(onRedis('GET'), 2)} POST ${fixed(onRedis('POST'), 2)} (service on Redis/service on memory, ${rounds})`,
    );
  }
  if (measured('service-redis-workers')) {
    print(
      `bench-workers: GET ${fixed(workers('GET'), 2)} POST ${fixed(workers('POST'), 2)} (${WORKERS} workers/1 process on one Redis, req/s, ${rounds})`,
    );
  }
  // CPU per request added, within each round (the servers alternate in the same seconds).
  const added = (key: string, base: string, workload: Workload): string =>
    fixed(median(addedIn(key, base, workload)), 1);
  if (measured('koa-spin') && measured('koa')) {
    print(
      `bench-spin: ${SPIN_US} µs of work a request add GET +${added('koa-spin', 'koa', 'GET')} POST +${added('koa-spin', 'koa', 'POST')} µs/req to bare Koa (CPU of the server, ${rounds})`,
    );
  }
  if (measured('service-traced')) {
    print(
      `bench-observe: access log + metrics GET +${added('service', 'service-quiet', 'GET')} POST +${added('service', 'service-quiet', 'POST')} µs/req; tracing on GET +${added('service-traced', 'service', 'GET')} POST +${added('service-traced', 'service', 'POST')} µs/req (CPU of the server, ${rounds})`,
    );
  }
  if (overheadMeasured) {
    const micros = (workload: Workload) =>
      `${workload} ${added('fastify-features', 'fastify', workload)}/${added('service', 'koa', workload)}`;
    print(
      `bench-overhead: GET ${overheadText('GET')} POST ${overheadText('POST')} ((Fastify + features - Fastify)/(service - bare Koa), CPU µs per request ${micros('GET')} ${micros('POST')}, ${rounds})`,
    );
  }
  if (nest.length > 0) {
    print(
      `bench-peers: GET ${fixed(bestPeers('GET'), 2)} POST ${fixed(bestPeers('POST'), 2)} (service/best NestJS peer per CPU-s, ${rounds})`,
    );
  }
  if (nest.length > 0 && latencyRows.length > 0) {
    const p99 = (workload: Workload) =>
      `${fixed(latencyOf('service', workload)?.p99, 2)} / ${fixed(bestP99(workload), 2)}`;
    print(
      `bench-latency: GET p99 ${p99('GET')} POST p99 ${p99('POST')} (ms, service / best NestJS peer, at ${rates.GET} / ${rates.POST} req/s)`,
    );
  }
  const last = `bench: GET ${fixed(getRatio, 2)} POST ${fixed(postRatio, 2)} (service/bare Koa, median of ${SETTINGS.rounds} rounds)`;
  out.push(last);
  mkdirSync(`${ROOT}bench/results`, { recursive: true });
  const name = quick ? 'quick' : 'latest';
  writeFileSync(`${ROOT}bench/results/${name}.txt`, `${out.join('\n')}\n`);
  writeFileSync(
    `${ROOT}bench/results/${name}.json`,
    `${JSON.stringify({ settings: SETTINGS, pinned: pinning !== undefined, stores: STORES.map(({ kind, what }) => ({ kind, what })), samples: Object.fromEntries(samples), scaling: scaleRows, latency: { rates, rows: latencyRows.map(({ server, ...row }) => ({ server: server.key, ...row })) }, problems, limitations }, null, 2)}\n`,
  );
  console.log(last);
}

main()
  .catch((error: unknown) => {
    console.error(`bench: failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  })
  .finally(async () => {
    stopLoader();
    collector.close();
    await Promise.all(STORES.map((store) => store.stop()));
  });
