import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { BENCH_TOKEN, benchTokens, LISTENING } from './common.js';
import type { CollectJob, LoadJob, LoadResult } from './load.js';

// `npm run bench`: the service against bare Koa, bare node:http and Fastify, interleaved in rounds,
// each server in its own process and autocannon in another; then list latency and memory as the
// memory store grows. See bench/README.md for how to read the output.

const T0 = Date.now();
const ROOT = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const numberArg = (name: string, fallback: number): number => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : Number(args[at + 1]);
};

const SETTINGS = quick
  ? { rounds: 1, seed: 200, warmup: 0.2, duration: 0.5, scaleSizes: [1000], scaleDuration: 0.5 }
  : {
      rounds: numberArg('--rounds', 3),
      seed: 10_000,
      warmup: numberArg('--warmup', 2),
      duration: numberArg('--duration', 10),
      scaleSizes: [1000, 100_000, 1_000_000],
      scaleDuration: numberArg('--scale-duration', 5),
    };
const CONNECTIONS = 50;
const SLICE_SECONDS = 1;
const SCALE_CONNECTIONS = 10;
const LIST_PATH = '/plants?limit=20';
const skipScaling = args.includes('--no-scaling');

// ---- pinning ----

const pinning = (() => {
  if (cpus().length < 2) return undefined;
  const probe = spawnSync('taskset', ['-c', '0', 'true']);
  return probe.status === 0 ? { server: '0', load: '1' } : undefined;
})();

/** node with its arguments, on the given core when pinning works. */
function nodeCommand(core: string, nodeArgs: string[]): [string, string[]] {
  return pinning === undefined
    ? [process.execPath, nodeArgs]
    : ['taskset', ['-c', core, process.execPath, ...nodeArgs]];
}

// ---- servers ----

interface ServerSpec {
  key: string;
  label: string;
  nodeArgs: string[];
  env?: Record<string, string>;
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
// The service on another store joins the rounds when its URL is given (e.g. BENCH_REDIS_URL).
const OTHER_STORES: ServerSpec[] = [
  ['redis', process.env.BENCH_REDIS_URL, 'REDIS_URL'] as const,
  ['mongodb', process.env.BENCH_MONGODB_URL, 'MONGODB_URL'] as const,
].flatMap(([kind, url, variable]) =>
  url === undefined
    ? []
    : [
        {
          key: `service-${kind}`,
          label: `service (${kind})`,
          nodeArgs: ['dist/cli.js', 'serve'],
          env: { PLANT_STORE_STORAGE: kind, [variable]: url },
        },
      ],
);
// `--baseline path/to/main.js`: another build of the service (e.g. `git stash && npm run build &&
// cp -r dist /tmp/base`) joins the rounds, to measure a change against what it replaces.
// Repeatable; `--baseline name=path/to/main.js` names it.
const BASELINE: ServerSpec[] = args.flatMap((arg, i) => {
  if (arg !== '--baseline') return [];
  const value = args[i + 1]!;
  const [label, path] = value.includes('=') ? value.split('=', 2) : ['baseline', value];
  return [
    { key: label!, label: label!, nodeArgs: [path!], env: { PLANT_STORE_STORAGE: 'memory' } },
  ];
});
// `--servers service,koa`: a subset, for quicker comparisons (the service is always included).
const serversAt = args.indexOf('--servers');
const chosen = serversAt === -1 ? undefined : new Set(args[serversAt + 1]!.split(','));
const SERVERS = [SERVICE, ...REFERENCES, ...OTHER_STORES, ...BASELINE].filter(
  (server) =>
    chosen === undefined ||
    server === SERVICE ||
    BASELINE.includes(server) ||
    chosen.has(server.key),
);

interface Running {
  child: ChildProcess;
  url: string;
  output: () => string;
}

let runCounter = 0;

// Servers still running when the bench stops (an error, Ctrl-C) are stopped with it.
const children = new Set<ChildProcess>();
process.once('exit', () => {
  children.forEach((child) => child.kill('SIGKILL'));
  loader.kill();
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

async function startServer(nodeArgs: string[], env: Record<string, string>): Promise<Running> {
  const [command, commandArgs] = nodeCommand(pinning?.server ?? '', nodeArgs);
  // Each start gets its own tenant, so that stores that outlive the process never see an id twice.
  const tenant = `bench-${process.pid}-${++runCounter}`;
  const child = spawn(command, commandArgs, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      PORT: '0',
      HOST: '127.0.0.1',
      PLANT_STORE_TOKENS: benchTokens(tenant),
      NODE_ENV: 'production',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const match = LISTENING.exec(text);
    if (match) return { child, url: `http://${match[1]}:${match[2]}`, output: () => text };
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server ${nodeArgs.join(' ')} did not start:\n${text}`);
    }
    await sleep(50);
  }
}

async function stopServer({ child }: Running): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** CPU seconds a process has used, all threads, user and system (Linux), or NaN. */
function cpuSeconds(pid: number | undefined): number {
  try {
    // Fields after the command's closing parenthesis; utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/** Resident set size of a process in MB (Linux), or NaN where /proc is not there. */
function rssMb(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
    return kb === undefined ? Number.NaN : Number(kb) / 1024;
  } catch {
    return Number.NaN;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---- the load generator process ----

const [loadCommand, loadArgs] = nodeCommand(pinning?.load ?? '', [...TSX, 'bench/load.ts']);
const loader = spawn(loadCommand, loadArgs, {
  cwd: ROOT,
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const loaderReady = new Promise<void>((resolve, reject) => {
  loader.once('message', () => resolve());
  loader.once('exit', (code) => reject(new Error(`load generator exited (${code})`)));
});

function ask<T>(job: LoadJob | CollectJob): Promise<T> {
  return new Promise((resolve, reject) => {
    loader.once('message', (message: { result?: T; error?: string }) =>
      message.result ? resolve(message.result) : reject(new Error(message.error)),
    );
    loader.send(job);
  });
}
const load = (job: LoadJob) => ask<LoadResult>(job);
const collect = (tag: string) => ask<{ p50: number; p99: number }>({ kind: 'collect', tag });

const problems: string[] = [];

/** Every request of a run must have succeeded, or the figures mean nothing. */
function check(what: string, result: LoadResult): LoadResult {
  if (result.non2xx > 0 || result.errors > 0 || result.ok === 0) {
    problems.push(
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

const median = (values: number[]): number => {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const fixed = (value: number, digits: number) =>
  Number.isNaN(value) ? '-' : value.toFixed(digits);
const pad = (text: string, width: number) => text.padEnd(width);
const lpad = (text: string, width: number) => text.padStart(width);

// ---- the rounds ----

type Workload = 'GET' | 'POST';
interface Sample {
  rps: number;
  /** CPU time the server spent per request served, in microseconds. */
  cpuUs: number;
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
      const started = await startServer(server.nodeArgs, server.env ?? {});
      running.set(server, started);
      const what = `round ${round} ${server.label}`;
      check(
        `${what} seed`,
        await load({
          kind: 'seed',
          url: started.url,
          connections: 32,
          from: 1,
          count: SETTINGS.seed,
        }),
      );
      const page = await get(started.url, LIST_PATH);
      const plants = page.status === 200 ? (JSON.parse(page.text) as unknown[]) : [];
      if (plants.length !== 20) {
        problems.push(
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
        { requests: number; seconds: number; cpu: number; served: number }
      >();
      for (let slice = 0; slice < slices; slice++) {
        for (const [server, job] of jobs) {
          const what = `round ${round} ${server.label} ${workload}`;
          const duration = SETTINGS.duration / slices;
          const pid = running.get(server)!.child.pid;
          const cpuBefore = cpuSeconds(pid);
          const result = check(what, await load({ ...job, duration, tag: server.key }));
          const cpu = cpuSeconds(pid) - cpuBefore;
          const total = totals.get(server) ?? { requests: 0, seconds: 0, cpu: 0, served: 0 };
          totals.set(server, {
            requests: total.requests + result.requests,
            seconds: total.seconds + result.seconds,
            cpu: total.cpu + cpu,
            served: total.served + result.ok,
          });
        }
      }
      for (const [server, { child }] of running) {
        const { requests, seconds, cpu, served } = totals.get(server)!;
        const { p50, p99 } = await collect(server.key);
        const cpuUs = (cpu / served) * 1e6;
        record(server, workload, {
          rps: requests / seconds,
          p50,
          p99,
          rss: rssMb(child.pid),
          cpuUs,
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

// ---- scaling ----

interface ScaleTarget {
  name: string;
  /** A StorageConfig, as the service's configuration has it. */
  storage: Record<string, string>;
  sizes: number[];
}
const SCALE_TARGETS: ScaleTarget[] = [
  { name: 'memory', storage: { kind: 'memory' }, sizes: SETTINGS.scaleSizes },
  // Adapters on a server: set BENCH_REDIS_URL / BENCH_MONGODB_URL to include them (1k and 100k).
  ...(process.env.BENCH_REDIS_URL === undefined
    ? []
    : [
        {
          name: 'redis',
          storage: { kind: 'redis', url: process.env.BENCH_REDIS_URL },
          sizes: SETTINGS.scaleSizes.slice(0, 2),
        },
      ]),
  ...(process.env.BENCH_MONGODB_URL === undefined
    ? []
    : [
        {
          name: 'mongodb',
          storage: { kind: 'mongodb', url: process.env.BENCH_MONGODB_URL },
          sizes: SETTINGS.scaleSizes.slice(0, 2),
        },
      ]),
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
        const result = check(what, await load({ ...job, duration, tag: what }));
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
  print(
    `workloads: GET ${LIST_PATH} on ${SETTINGS.seed} seeded plants, POST /plants with unique ids; ${CONNECTIONS} connections, ${SETTINGS.warmup} s warm-up then ${SETTINGS.duration} s each (in ${SLICE_SECONDS} s slices, servers alternating); ${SETTINGS.rounds} round(s)`,
  );
  print();
  if (pinning) spawnSync('taskset', ['-a', '-pc', pinning.load, String(process.pid)]);

  for (let round = 1; round <= SETTINGS.rounds; round++) {
    await measureRound(round);
  }

  print(
    `${pad('server', 20)}${pad('workload', 10)}${lpad('req/s', 9)}${lpad('p50 ms', 9)}${lpad('p99 ms', 9)}${lpad('RSS MB', 9)}${lpad('CPU µs/req', 12)}   req/s per round`,
  );
  for (const workload of ['GET', 'POST'] as const) {
    for (const server of SERVERS) {
      const rows = samples.get(`${server.key} ${workload}`) ?? [];
      print(
        `${pad(server.label, 20)}${pad(workload, 10)}${lpad(fixed(median(rows.map((r) => r.rps)), 0), 9)}${lpad(fixed(median(rows.map((r) => r.p50)), 2), 9)}${lpad(fixed(median(rows.map((r) => r.p99)), 2), 9)}${lpad(fixed(median(rows.map((r) => r.rss)), 0), 9)}${lpad(fixed(median(rows.map((r) => r.cpuUs)), 1), 12)}   ${rows.map((r) => r.rps.toFixed(0)).join(' ')}`,
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
  const summary = (values: number[]) => {
    const sorted = values.filter((v) => !Number.isNaN(v)).sort((x, y) => x - y);
    return `${fixed(sorted[0] ?? Number.NaN, 2)} / ${fixed(median(sorted), 2)} / ${fixed(sorted.at(-1) ?? Number.NaN, 2)}`;
  };
  print(
    `ratios per round, min / median / max of ${SETTINGS.rounds}: of req/s, and of requests per CPU-second of the server`,
  );
  for (const workload of ['GET', 'POST'] as const) {
    for (const reference of [...REFERENCES, ...BASELINE].filter((r) => SERVERS.includes(r))) {
      print(
        `  ${pad(workload, 5)}${pad(`service/${reference.label}`, 36)}${summary(ratios('service', reference.key, workload))}    per CPU-s ${summary(ratios('service', reference.key, workload, efficiency))}`,
      );
    }
    for (const other of OTHER_STORES) {
      print(
        `  ${pad(workload, 5)}${pad(`${other.label}/service (memory)`, 36)}${summary(ratios(other.key, 'service', workload))}    per CPU-s ${summary(ratios(other.key, 'service', workload, efficiency))}`,
      );
    }
  }
  print();

  const scaleRows: ScaleRow[] = [];
  if (!skipScaling) {
    for (const target of SCALE_TARGETS) {
      scaleRows.push(...(await measureScale(target)));
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

  const getRatio = median(ratios('service', 'koa', 'GET'));
  const postRatio = median(ratios('service', 'koa', 'POST'));
  const target = (
    label: string,
    value: number,
    goal: number,
    higherIsBetter: boolean,
    unit = 'x',
  ) => {
    const met = higherIsBetter ? value >= goal : value <= goal;
    const known = Number.isFinite(value);
    const gap = higherIsBetter ? goal / value - 1 : value / goal - 1;
    print(
      `  ${pad(label, 46)}${fixed(value, 2)}${unit}  ${!known ? 'not measured' : met ? 'met' : `MISSED by ${(gap * 100).toFixed(0)}%`}`,
    );
  };
  print('targets (printed, never asserted):');
  target('GET list >= 1.0x bare Koa', getRatio, 1.0, true);
  target('POST create >= 0.9x bare Koa', postRatio, 0.9, true);
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

  if (problems.length > 0) {
    print();
    print('PROBLEMS (figures above are not trustworthy):');
    for (const problem of problems) print(`  ${problem}`);
    process.exitCode = 1;
  }

  const last = `bench: GET ${fixed(getRatio, 2)} POST ${fixed(postRatio, 2)} (service/bare Koa, median of ${SETTINGS.rounds} rounds)`;
  out.push(last);
  mkdirSync(`${ROOT}bench/results`, { recursive: true });
  const name = quick ? 'quick' : 'latest';
  writeFileSync(`${ROOT}bench/results/${name}.txt`, `${out.join('\n')}\n`);
  writeFileSync(
    `${ROOT}bench/results/${name}.json`,
    `${JSON.stringify({ settings: SETTINGS, pinned: pinning !== undefined, samples: Object.fromEntries(samples), scaling: scaleRows, problems }, null, 2)}\n`,
  );
  console.log(last);
}

main()
  .catch((error: unknown) => {
    console.error(`bench: failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  })
  .finally(() => loader.kill());
