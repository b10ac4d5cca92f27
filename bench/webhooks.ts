import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_TENANT, benchTokens } from './common.js';
import type { Deliveries, LoadJob, LoadResult } from './load.js';
import {
  cpuSeconds,
  median,
  onLoadCore,
  pinning,
  ROOT,
  startLoader,
  sleep,
  startServer,
  stopServer,
  type Running,
} from './proc.js';
import { benchStores } from './stores.js';

// `npm run bench:webhooks [-- --rounds N --duration S --no-redis --baseline name=path/to/cli.js]`:
// POST /plants on the service without and with one webhook subscription, on the embedded store
// (lmdb, the default: the outbox written in the create's transaction) and on Redis (a private redis-server), measured as bench/run.ts measures:
// every service its own process pinned to core 0, autocannon and the receiver in the load process
// on core 1, the measured seconds in 1 s slices alternating between the services, ratios per round.
// After each slice of a subscribed service the bench waits until every create of the slice was
// delivered, and counts the CPU the service spent until then: CPU per create includes its delivery.

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '2' },
    duration: { type: 'string', default: '6' },
    baseline: { type: 'string', multiple: true, default: [] },
    'no-redis': { type: 'boolean', default: false },
  },
});
const quick = values.quick;
const SETTINGS = quick
  ? { rounds: 1, warmup: 0.5, duration: 1 }
  : {
      rounds: Number(values.rounds),
      warmup: Number(values.warmup),
      duration: Number(values.duration),
    };
const CONNECTIONS = 50;
const SLICE_SECONDS = 1;
const DRAIN_TIMEOUT_MS = 30_000;
const T0 = Date.now();

// `--baseline name=path/to/cli.js`: another build's CLI (e.g. the tree before a change, built into
// /tmp/prev/dist) joins the rounds as a subscribed service, to measure a change against it.
const BASELINES = values.baseline.map((given) => {
  const [name, path] = given.split('=', 2);
  return { name: name!, cli: path! };
});

interface Spec {
  key: string;
  label: string;
  cli: string;
  subscribed: boolean;
  /**
   * Redis: the measured service records but does not deliver (PLANT_STORE_WEBHOOK_DELIVER=false);
   * a second `serve` on the same store, pinned to the load core and given no requests, delivers.
   */
  elsewhere?: boolean;
}
const SPECS: Spec[] = [
  { key: 'plain', label: 'no subscription', cli: 'dist/cli.js', subscribed: false },
  { key: 'hooked', label: 'one subscription', cli: 'dist/cli.js', subscribed: true },
  {
    key: 'elsewhere',
    label: 'one, sent elsewhere',
    cli: 'dist/cli.js',
    subscribed: true,
    elsewhere: true,
  },
  ...BASELINES.map(({ name, cli }) => ({
    key: name,
    label: `${name} (subscribed)`,
    cli,
    subscribed: true,
  })),
];

// ---- the load process (autocannon and the receiver) ----

const { ready: loaderReady, ask } = startLoader();
const problems: string[] = [];
async function load(what: string, job: LoadJob): Promise<LoadResult> {
  const result = await ask<LoadResult>(job);
  if (result.non2xx > 0 || result.errors > 0 || result.ok === 0) {
    problems.push(`${what}: ${result.ok} ok, ${result.non2xx} non-2xx, ${result.errors} errors`);
  }
  return result;
}
const deliveries = (key: string, collect = false) =>
  ask<Deliveries>({ kind: 'deliveries', key, collect });

// ---- services ----

interface Store {
  name: string;
  env: Record<string, string>;
  pid?: number;
}

interface Service {
  spec: Spec;
  running: Running;
  /** The delivering process of an `elsewhere` service. */
  deliverer?: Running;
  /** Deliveries arrive at the receiver under this key (unique over the run). */
  key: string;
  dir: string;
}

let starts = 0;
async function startService(spec: Spec, store: Store, receiverPort: number): Promise<Service> {
  const key = `${store.name}-${spec.key}-${++starts}`;
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-bench-webhooks-'));
  // Each start has a tenant of its own, so that a store outliving the process never mixes them.
  const tenant = `${BENCH_TENANT}-${process.pid}-${starts}`;
  const env = {
    ...store.env,
    LOG_LEVEL: 'warn',
    PLANT_STORE_TOKENS: benchTokens(tenant),
    PLANT_STORE_DATA_DIR: join(dir, 'data'),
    PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true',
  };
  if (spec.subscribed) {
    // Subscribed before the service starts, so that no create of the run goes unrecorded.
    const url = `http://127.0.0.1:${receiverPort}/hooks/${key}`;
    const added = spawnSync(
      process.execPath,
      [spec.cli, 'webhooks', 'add', '--tenant', tenant, '--url', url],
      { cwd: ROOT, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' },
    );
    const secret = /whsec_\S+/.exec(added.stdout)?.[0];
    if (added.status !== 0 || secret === undefined) {
      throw new Error(`webhooks add failed (${added.status}): ${added.stderr}`);
    }
    await ask({ kind: 'expect', key, secret });
  }
  if (spec.elsewhere) {
    const running = await startServer([spec.cli, 'serve'], {
      ...env,
      PLANT_STORE_WEBHOOK_DELIVER: 'false',
    });
    const deliverer = await startServer([spec.cli, 'serve'], env, pinning?.load);
    return { spec, running, deliverer, key, dir };
  }
  const running = await startServer([spec.cli, 'serve'], env);
  return { spec, running, key, dir };
}

// ---- the rounds ----

interface Sample {
  rps: number;
  /** Service CPU per create, delivery included (the slice plus waiting for its deliveries). */
  cpuUs: number;
  /** Store server CPU per create, when the run started it. */
  storeUs: number;
  /** The delivering process's CPU per create, when delivery is elsewhere. */
  delivererUs: number;
  /** Milliseconds after a slice until all of its creates were delivered. */
  drainMs: number;
  p50: number;
  p99: number;
  delivered: number;
  duplicates: number;
}
const samples = new Map<string, Sample[]>(); // `${store} ${spec.key}` -> one per round

async function measureRound(store: Store, round: number, receiverPort: number): Promise<void> {
  const services: Service[] = [];
  try {
    for (const spec of SPECS) {
      services.push(await startService(spec, store, receiverPort));
    }
    const job = (service: Service, duration: number): LoadJob => ({
      kind: 'post',
      url: service.running.url,
      connections: CONNECTIONS,
      duration,
      ...(service.spec.subscribed && { track: service.key }),
    });
    const expected = new Map<Service, number>();
    /** Waits until every create answered 2xx so far was delivered; resolves how long it took. */
    const drain = async (service: Service): Promise<number> => {
      const started = Date.now();
      if (!service.spec.subscribed) return 0;
      while (Date.now() - started < DRAIN_TIMEOUT_MS) {
        const { delivered } = await deliveries(service.key);
        if (delivered >= (expected.get(service) ?? 0)) return Date.now() - started;
        await sleep(5);
      }
      problems.push(
        `${store.name} round ${round} ${service.spec.label}: deliveries did not catch up`,
      );
      return Date.now() - started;
    };
    for (const service of services) {
      const warm = await load(`warm-up ${service.key}`, job(service, SETTINGS.warmup));
      expected.set(service, warm.ok);
      await drain(service);
    }
    const slices = Math.max(1, Math.round(SETTINGS.duration / SLICE_SECONDS));
    const totals = new Map(
      services.map((s) => [
        s,
        { requests: 0, seconds: 0, served: 0, cpu: 0, storeCpu: 0, delivererCpu: 0, drainMs: 0 },
      ]),
    );
    for (let slice = 0; slice < slices; slice++) {
      for (const service of services) {
        const pid = service.running.child.pid;
        const cpuBefore = cpuSeconds(pid);
        const storeBefore = cpuSeconds(store.pid);
        const delivererBefore = cpuSeconds(service.deliverer?.child.pid);
        const result = await load(
          `${store.name} round ${round} ${service.spec.label}`,
          job(service, SETTINGS.duration / slices),
        );
        expected.set(service, (expected.get(service) ?? 0) + result.ok);
        const drainMs = await drain(service);
        const total = totals.get(service)!;
        total.requests += result.requests;
        total.seconds += result.seconds;
        total.served += result.ok;
        total.cpu += cpuSeconds(pid) - cpuBefore;
        total.storeCpu += cpuSeconds(store.pid) - storeBefore;
        total.delivererCpu += cpuSeconds(service.deliverer?.child.pid) - delivererBefore;
        total.drainMs += drainMs;
      }
    }
    for (const service of services) {
      const { requests, seconds, served, cpu, storeCpu, delivererCpu, drainMs } =
        totals.get(service)!;
      const figures = service.spec.subscribed ? await deliveries(service.key, true) : undefined;
      if (figures !== undefined && figures.forged > 0) {
        problems.push(`${service.key}: ${figures.forged} deliveries with a wrong signature`);
      }
      const key = `${store.name} ${service.spec.key}`;
      samples.set(key, [
        ...(samples.get(key) ?? []),
        {
          rps: requests / seconds,
          cpuUs: (cpu / served) * 1e6,
          storeUs: (storeCpu / served) * 1e6,
          delivererUs: (delivererCpu / served) * 1e6,
          drainMs: drainMs / slices,
          p50: figures?.p50 ?? Number.NaN,
          p99: figures?.p99 ?? Number.NaN,
          delivered: figures?.delivered ?? 0,
          duplicates: figures?.duplicates ?? 0,
        },
      ]);
      process.stderr.write(
        `  ${store.name} round ${round} ${service.spec.label}: ${(requests / seconds).toFixed(0)} req/s, ${((cpu / served) * 1e6).toFixed(0)} CPU µs/create (${((Date.now() - T0) / 1000).toFixed(0)} s)\n`,
      );
    }
  } finally {
    await Promise.all(
      services
        .flatMap((service) => [service.running, ...(service.deliverer ? [service.deliverer] : [])])
        .map(stopServer),
    );
    for (const { dir } of services) rmSync(dir, { recursive: true, force: true });
  }
}

// ---- main ----

const fixed = (value: number, digits: number) =>
  Number.isNaN(value) ? '-' : value.toFixed(digits);
const spread = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `${fixed(sorted[0]!, 2)} / ${fixed(median(sorted), 2)} / ${fixed(sorted.at(-1)!, 2)}`;
};

async function main(): Promise<void> {
  if (!existsSync(`${ROOT}dist/cli.js`))
    throw new Error('dist/cli.js is missing: run `npm run build`');
  await loaderReady;
  const { port: receiverPort } = await ask<{ port: number }>({ kind: 'receiver' });
  const out: string[] = [];
  const print = (line = '') => {
    out.push(line);
    console.log(line);
  };
  print(`plant-store bench webhooks: ${new Date().toISOString()}`);
  print(
    `machine: ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${cpus().length} cores, Node ${process.version}`,
  );
  print(
    pinning
      ? `pinned: yes (services on core ${pinning.server}; autocannon, the receiver and redis-server on core ${pinning.load})`
      : 'pinned: no (taskset unavailable or fewer than 2 cores)',
  );
  const skip = new Set(['mongodb', ...(values['no-redis'] ? ['redis'] : [])]);
  const servers = await benchStores(onLoadCore, skip);
  const stores: Store[] = [
    { name: 'lmdb', env: { PLANT_STORE_STORAGE: 'lmdb' } },
    ...servers.map((server) => ({
      name: server.kind,
      env: { PLANT_STORE_STORAGE: server.kind, REDIS_URL: server.url },
      ...(server.pid !== undefined && { pid: server.pid }),
    })),
  ];
  print(
    `workload: POST /plants with unique ids, ${CONNECTIONS} connections, ${SETTINGS.warmup} s warm-up then ${SETTINGS.duration} s each in ${SLICE_SECONDS} s slices alternating (${SPECS.map((s) => s.key).join(' ')}), each subscribed slice followed by waiting for its deliveries; ${SETTINGS.rounds} round(s) per store; uptime: ${uptime()}`,
  );
  if (pinning) spawnSync('taskset', ['-a', '-pc', pinning.load, String(process.pid)]);
  for (const store of stores) {
    for (let round = 1; round <= SETTINGS.rounds; round++) {
      await measureRound(store, round, receiverPort);
    }
  }
  await Promise.all(servers.map((server) => server.stop()));

  print();
  const columns: [string, number, (s: Sample) => number, number][] = [
    ['req/s', 8, (s) => s.rps, 0],
    ['CPU µs/create', 15, (s) => s.cpuUs, 1],
    ['sender µs', 11, (s) => s.delivererUs, 1],
    ['store µs', 10, (s) => s.storeUs, 1],
    ['drain ms', 10, (s) => s.drainMs, 0],
    ['lag p50 ms', 12, (s) => s.p50, 1],
    ['lag p99 ms', 12, (s) => s.p99, 1],
  ];
  print(
    `${'store'.padEnd(8)}${'service'.padEnd(22)}${columns.map(([name, width]) => name.padStart(width)).join('')}${'dups'.padStart(6)}`,
  );
  for (const store of stores) {
    for (const spec of SPECS) {
      const rows = samples.get(`${store.name} ${spec.key}`) ?? [];
      if (rows.length === 0) continue;
      const figures = columns.map(([, width, pick, digits]) =>
        fixed(median(rows.map(pick)), digits).padStart(width),
      );
      const dups = rows.reduce((n, s) => n + s.duplicates, 0);
      print(
        `${store.name.padEnd(8)}${spec.label.padEnd(22)}${figures.join('')}${String(dups).padStart(6)}`,
      );
    }
  }
  print();
  print(
    `ratios per round, min / median / max of ${SETTINGS.rounds}: of req/s, and of creates per CPU-second of the service (delivery included)`,
  );
  const summary: string[] = [];
  for (const store of stores) {
    for (const spec of SPECS.filter((s) => s.subscribed)) {
      const rows = samples.get(`${store.name} ${spec.key}`) ?? [];
      if (rows.length === 0) continue;
      // A baseline build is compared with this one; delivery elsewhere with no subscription.
      const against = spec.key === 'hooked' || spec.elsewhere ? 'plain' : 'hooked';
      const other = samples.get(`${store.name} ${against}`) ?? [];
      const versus = against === 'plain' ? 'no subscription' : 'one subscription';
      const rps = rows.map((s, i) => s.rps / other[i]!.rps);
      const cpu = rows.map((s, i) => other[i]!.cpuUs / s.cpuUs);
      print(
        `  ${store.name.padEnd(7)} ${`${spec.label}/${versus}`.padEnd(44)} ${spread(rps)}    per CPU-s ${spread(cpu)}`,
      );
      if (spec.key === 'hooked' || spec.elsewhere) {
        const name = spec.elsewhere ? `${store.name} sent elsewhere` : store.name;
        summary.push(`${name} ${fixed(median(rps), 2)}/${fixed(median(cpu), 2)}`);
      }
    }
  }
  print(`uptime after: ${uptime()}`);
  if (problems.length > 0) {
    print();
    print('PROBLEMS (figures above are not trustworthy):');
    for (const problem of problems) print(`  ${problem}`);
  }
  print(
    `bench-webhooks: ${summary.join(', ')} (one subscription/none, req/s / per CPU-s, median of ${SETTINGS.rounds} rounds; target 0.8)`,
  );
  mkdirSync(`${ROOT}bench/results`, { recursive: true });
  writeFileSync(`${ROOT}bench/results/webhooks${quick ? '-quick' : ''}.txt`, `${out.join('\n')}\n`);
  process.exit(problems.length > 0 ? 1 : 0);
}

function uptime(): string {
  return spawnSync('uptime', { encoding: 'utf8' })
    .stdout.trim()
    .replace(/^.*load/, 'load');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
