import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { FILTER_TAG, TAG_EVERY } from './common.js';
import { NEST_KEYS } from './peers.js';
import { median, pinning, ROOT } from './proc.js';
import {
  CONNECTIONS,
  COLD_PAGES,
  LIST_PATH,
  SCALE_CONNECTIONS,
  SLICE_SECONDS,
  TAGS_PAGES,
  TAGS_SMALL,
  type RunOptions,
} from './run-options.js';
import { latencyServers, WORKERS, type RunPlan } from './run-plan.js';
import {
  fixed,
  WORKLOADS,
  type BenchRunner,
  type LatencyRow,
  type Sample,
  type ScaleRow,
  type TagRow,
  type Workload,
} from './run-measure.js';

// How a run reports: the tables, the ratios within each round, the targets (printed, never
// asserted) and the one-line `bench-*` summaries, printed and written to bench/results/.

const pad = (text: string, width: number) => text.padEnd(width);
const lpad = (text: string, width: number) => text.padStart(width);

// CPU efficiency: requests per CPU-second, which other processes on the machine disturb far less
// than requests per wall-clock second.
const efficiency = (sample: Sample) => 1 / sample.cpuUs;
// The same, counting the CPU of the store server the run started (Redis on the servers' core).
const withStore = (sample: Sample) =>
  1 / (sample.cpuUs + (Number.isNaN(sample.storeUs) ? 0 : sample.storeUs));
const rate = (sample: Sample) => sample.rps;

const diskPerMillion = (row: ScaleRow) => ((row.diskBytes ?? Number.NaN) / 1e6 / row.plants) * 1e6;

const size = (n: number) => (n >= 1e6 ? `${n / 1e6}M` : `${n / 1e3}k`);

/**
 * The tags scenario's ratios on one store, within its run: the filtered page at the large tenant
 * against the unfiltered page at TAGS_SMALL (p50, p99, requests per CPU-second), and GET
 * /plants/{id} per CPU-second against that unfiltered page, at TAGS_SMALL and at the large tenant.
 */
function tagRatios(rows: TagRow[], store: string) {
  const of = (request: TagRow['request'], small: boolean) =>
    rows.find(
      (row) =>
        row.store === store && row.request === request && (row.plants === TAGS_SMALL) === small,
    );
  const [list, listLarge, filtered, getSmall, getLarge] = [
    of('list', true),
    of('list', false),
    of('filtered', false),
    of('get', true),
    of('get', false),
  ];
  if (list === undefined || filtered === undefined) return undefined;
  const perCpu = (row: TagRow | undefined) =>
    row === undefined ? Number.NaN : list.cpuUs / row.cpuUs;
  return {
    plants: filtered.plants,
    p50: filtered.p50 / list.p50,
    p99: filtered.p99 / list.p99,
    perCpu: perCpu(filtered),
    /** The filter's own cost: the filtered page against the unfiltered one on the same tenant. */
    ownCost: listLarge === undefined ? Number.NaN : listLarge.cpuUs / filtered.cpuUs,
    getSmall: perCpu(getSmall),
    getLarge: perCpu(getLarge),
  };
}

const summary = (values: number[]) => {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((x, y) => x - y);
  return `${fixed(sorted[0] ?? Number.NaN, 2)} / ${fixed(median(sorted), 2)} / ${fixed(sorted.at(-1) ?? Number.NaN, 2)}`;
};

export class RunReport {
  private readonly out: string[] = [];
  private readonly rounds: number;

  constructor(
    private readonly options: RunOptions,
    private readonly plan: RunPlan,
    private readonly runner: BenchRunner,
  ) {
    this.rounds = options.settings.rounds;
  }

  print(line = ''): void {
    this.out.push(line);
    console.log(line);
  }

  header(storeNotes: string[]): void {
    const { settings } = this.options;
    this.print(
      `plant-store bench${this.options.quick ? ' (--quick)' : ''}: ${new Date().toISOString()}`,
    );
    this.print(
      `machine: ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GB, Node ${process.version}, ${process.platform}`,
    );
    this.print(
      pinning
        ? `pinned: yes (servers on core ${pinning.server}, autocannon on core ${pinning.load})`
        : 'pinned: no (taskset unavailable or fewer than 2 cores)',
    );
    for (const store of this.plan.stores) {
      const own = pinning
        ? `, own server on core ${pinning.server} with the servers`
        : ', own server';
      this.print(`store: ${store.kind} ${store.what}${store.pid === undefined ? '' : own}`);
    }
    for (const note of storeNotes) this.print(`store: ${note}`);
    this.print(
      `workloads: GET ${LIST_PATH}${settings.coldPages ? ` (${COLD_PAGES} pages in turn, a cursor each: --cold-pages)` : ''} on ${settings.seed} seeded plants, POST /plants with unique ids; ${CONNECTIONS} connections, ${settings.warmup} s warm-up then ${settings.duration} s each (in ${SLICE_SECONDS} s slices, servers alternating); ${settings.rounds} round(s)`,
    );
    this.print();
  }

  /** Ratios are taken within a round (same minute, same machine load), then summarised. */
  private ratios(numerator: string, denominator: string, workload: Workload, of = rate): number[] {
    const a = this.runner.samplesOf(numerator, workload);
    const b = this.runner.samplesOf(denominator, workload);
    return a.map((sample, i) => of(sample) / (b[i] === undefined ? Number.NaN : of(b[i])));
  }

  private measured(key: string): boolean {
    return this.plan.servers.some((server) => server.key === key);
  }

  private cpuUs(key: string, workload: Workload): number {
    return median(this.runner.samplesOf(key, workload).map((sample) => sample.cpuUs));
  }

  /** CPU µs per request `key` adds to `base`, within each round (the servers alternate in the same seconds). */
  private addedIn(key: string, base: string, workload: Workload): number[] {
    const b = this.runner.samplesOf(base, workload);
    return this.runner
      .samplesOf(key, workload)
      .map((sample, i) => sample.cpuUs - (b[i]?.cpuUs ?? Number.NaN));
  }

  private added(key: string, base: string, workload: Workload): string {
    return fixed(median(this.addedIn(key, base, workload)), 1);
  }

  roundsTable(): void {
    this.print(
      `${pad('server', 28)}${pad('workload', 10)}${lpad('req/s', 9)}${lpad('p50 ms', 9)}${lpad('p99 ms', 9)}${lpad('RSS MB', 9)}${lpad('CPU µs/req', 12)}${lpad('store µs/req', 14)}   req/s per round`,
    );
    for (const workload of WORKLOADS) {
      for (const server of this.plan.servers) {
        const rows = this.runner.samplesOf(server.key, workload);
        const of = (field: keyof Sample, digits: number, width: number) =>
          lpad(fixed(median(rows.map((row) => row[field])), digits), width);
        this.print(
          `${pad(server.label, 28)}${pad(workload, 10)}${of('rps', 0, 9)}${of('p50', 2, 9)}${of('p99', 2, 9)}${of('rss', 0, 9)}${of('cpuUs', 1, 12)}${of('storeUs', 1, 14)}   ${rows.map((r) => r.rps.toFixed(0)).join(' ')}`,
        );
      }
    }
    this.print();
  }

  ratiosSection(): void {
    const { servers, references, peers, baseline, otherStores } = this.plan;
    this.print(
      `ratios per round, min / median / max of ${this.rounds}: of req/s, and of requests per CPU-second of the server`,
    );
    const line = (workload: Workload, label: string, a: string, b: string, store: boolean) =>
      this.print(
        `  ${pad(workload, 5)}${pad(label, 52)}${summary(this.ratios(a, b, workload))}    per CPU-s ${summary(this.ratios(a, b, workload, efficiency))}${store ? `    with the store's CPU ${summary(this.ratios(a, b, workload, withStore))}` : ''}`,
      );
    for (const workload of WORKLOADS) {
      for (const reference of [...references, ...peers, ...baseline].filter((r) =>
        servers.includes(r),
      )) {
        // A baseline on a store is compared with the service on the same store.
        const [own, ownLabel] =
          reference.store === undefined
            ? ['service', 'service']
            : [`service-${reference.store.kind}`, `service (${reference.store.kind})`];
        line(workload, `${ownLabel}/${reference.label}`, own, reference.key, false);
      }
      for (const other of otherStores.filter((server) => servers.includes(server))) {
        // Workers and variants are compared with one process on the same store; the rest with memory.
        const [base, baseLabel] =
          other.base === undefined
            ? ['service', 'service (memory)']
            : [other.base.key, other.base.label];
        line(
          workload,
          `${other.label}/${baseLabel}`,
          other.key,
          base,
          other.store?.pid !== undefined,
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
          servers.find((server) => server.key === key),
        );
        if (a === undefined || b === undefined) continue;
        line(workload, `${a.label}/${b.label}`, a.key, b.key, true);
      }
    }
    this.print();
  }

  /** The peers: the service against what a team would otherwise build, per CPU-second of each. */
  peersSection(): void {
    const peers = this.plan.peers.filter((peer) => this.plan.servers.includes(peer));
    if (peers.length === 0) return;
    this.print(
      `peers: the service against each, per CPU-second of each server (service/peer, min / median / max of ${this.rounds} rounds; above 1 the service serves more requests per CPU-second)`,
    );
    this.print(
      `${pad('server', 22)}${lpad('GET µs/req', 11)}${lpad('POST µs/req', 12)}   ${pad('GET service/peer', 22)}POST service/peer`,
    );
    const micros = (key: string) =>
      `${lpad(fixed(this.cpuUs(key, 'GET'), 1), 11)}${lpad(fixed(this.cpuUs(key, 'POST'), 1), 12)}`;
    this.print(`${pad(this.plan.service.label, 22)}${micros('service')}`);
    for (const peer of peers) {
      const [onGet, onPost] = WORKLOADS.map((workload) =>
        summary(this.ratios('service', peer.key, workload, efficiency)),
      );
      this.print(`${pad(peer.label, 22)}${micros(peer.key)}   ${pad(onGet!, 22)}${onPost}`);
    }
    // What part of the gap to Fastify with the same features is Koa's own: bare Koa against bare
    // Fastify in the same rounds.
    if (this.measured('koa') && this.measured('fastify')) {
      const koaCost = (workload: Workload) =>
        fixed(median(this.ratios('koa', 'fastify', workload, efficiency)), 2);
      this.print(
        `  Koa's own cost: bare Koa/bare Fastify per CPU-s GET ${koaCost('GET')} POST ${koaCost('POST')} (same rounds)`,
      );
    }
    this.print();
  }

  scalingSection(rows: ScaleRow[]): void {
    this.print(
      `scaling: GET ${LIST_PATH}, first page and a page from the middle alternately, ${SCALE_CONNECTIONS} connections, ${this.options.settings.scaleDuration} s each in ${SLICE_SECONDS} s slices, sizes alternating; store filled in-process (bench/servers/scale.ts)`,
    );
    this.print(
      `${pad('store', 10)}${lpad('plants', 10)}${lpad('req/s', 9)}${lpad('p50 ms', 9)}${lpad('p99 ms', 9)}${lpad('RSS MB', 9)}${lpad('MB/1M plants', 14)}${lpad('vs memory', 11)}`,
    );
    for (const row of rows) {
      const memory = rows.find((r) => r.store === 'memory' && r.plants === row.plants);
      const relative =
        row.store === 'memory' || memory === undefined ? '' : fixed(row.rps / memory.rps, 2);
      const perMillion =
        row.store === 'memory' && row.plants >= 100_000 ? fixed(row.mbPerMillion, 0) : '';
      this.print(
        `${pad(row.store, 10)}${lpad(String(row.plants), 10)}${lpad(fixed(row.rps, 0), 9)}${lpad(fixed(row.p50, 2), 9)}${lpad(fixed(row.p99, 2), 9)}${lpad(fixed(row.rss, 0), 9)}${lpad(perMillion, 14)}${lpad(relative, 11)}`,
      );
    }
    // The embedded store's files and the service's start-up on them.
    for (const row of rows.filter((each) => each.diskBytes !== undefined)) {
      this.print(
        `  ${row.store} at ${row.plants} plants: ${fixed(row.diskBytes! / 1e6, 1)} MB on disk (${fixed(diskPerMillion(row), 0)} MB per million plants), filled in ${fixed(row.seedMs / 1000, 1)} s, serve started in ${fixed(row.startupMs, 0)} ms`,
      );
    }
    this.print();
  }

  tagsSection(rows: TagRow[]): void {
    const large =
      rows.find((row) => row.request === 'filtered')?.plants ?? this.options.settings.tagPlants;
    const paths: Record<TagRow['request'], string> = {
      list: LIST_PATH,
      filtered: `${LIST_PATH}&tags=${FILTER_TAG}`,
      get: '/plants/{id}',
    };
    this.print(
      `tags: GET ${paths.filtered} on ${large} plants (every ${TAG_EVERY}th id tagged ${FILTER_TAG}) against GET ${LIST_PATH} on ${TAGS_SMALL} (and on ${large}), each its first page and the next ${TAGS_PAGES - 1} by Link; GET /plants/{id} on 20 ids spread over each tenant; ${SCALE_CONNECTIONS} connections, ${this.options.settings.scaleDuration} s each in ${SLICE_SECONDS} s slices, requests alternating; stores filled in-process (bench/servers/scale.ts)`,
    );
    this.print(
      `${pad('store', 10)}${pad('request', 34)}${lpad('plants', 9)}${lpad('req/s', 9)}${lpad('p50 ms', 9)}${lpad('p99 ms', 9)}${lpad('CPU µs/req', 12)}`,
    );
    for (const row of rows) {
      this.print(
        `${pad(row.store, 10)}${pad(`GET ${paths[row.request]}`, 34)}${lpad(String(row.plants), 9)}${lpad(fixed(row.rps, 0), 9)}${lpad(fixed(row.p50, 2), 9)}${lpad(fixed(row.p99, 2), 9)}${lpad(fixed(row.cpuUs, 1), 12)}`,
      );
    }
    for (const store of new Set(rows.map((row) => row.store))) {
      const ratios = tagRatios(rows, store);
      if (ratios === undefined) continue;
      this.print(
        `  ${store}: filtered at ${size(ratios.plants)}/unfiltered at ${size(TAGS_SMALL)} p50 ${fixed(ratios.p50, 2)}x p99 ${fixed(ratios.p99, 2)}x per CPU-s ${fixed(ratios.perCpu, 2)}x (filtered/unfiltered at ${size(ratios.plants)} ${fixed(ratios.ownCost, 2)}x); GET /plants/{id}/list per CPU-s ${fixed(ratios.getSmall, 2)}x at ${size(TAGS_SMALL)}, ${fixed(ratios.getLarge, 2)}x at ${size(ratios.plants)}`,
      );
    }
    this.print();
  }

  /**
   * The rate of the fixed-rate latency: half the slowest server's median req/s in the rounds, so
   * that every server sustains it.
   */
  latencyRates(): Record<Workload, number> {
    const slowest = (workload: Workload) =>
      Math.min(
        ...latencyServers(this.plan).map((server) =>
          median(this.runner.samplesOf(server.key, workload).map((sample) => sample.rps)),
        ),
      );
    return {
      GET: Math.max(10, Math.round(slowest('GET') / 2)),
      POST: Math.max(10, Math.round(slowest('POST') / 2)),
    };
  }

  latencySection(rates: Record<Workload, number>, rows: LatencyRow[]): void {
    if (rows.length === 0) return;
    this.print(
      `latency at a fixed rate: GET ${rates.GET} req/s, POST ${rates.POST} req/s offered to every server (half the slowest server's median req/s), evenly spaced over ${CONNECTIONS} keep-alive connections, each latency from the moment its request was due; ${this.options.settings.latencyDuration} s each in ${SLICE_SECONDS} s slices, servers alternating`,
    );
    this.print(
      `${pad('server', 28)}${pad('workload', 10)}${lpad('req/s', 9)}${lpad('p50 ms', 9)}${lpad('p99 ms', 9)}`,
    );
    for (const workload of WORKLOADS) {
      for (const row of rows.filter((each) => each.workload === workload)) {
        this.print(
          `${pad(row.server.label, 28)}${pad(workload, 10)}${lpad(fixed(row.rps, 0), 9)}${lpad(fixed(row.p50, 2), 9)}${lpad(fixed(row.p99, 2), 9)}`,
        );
      }
    }
    this.print();
  }

  /** The targets, the problems and the `bench-*` lines; then everything to bench/results/. */
  conclude(results: {
    scaleRows: ScaleRow[];
    tagRows: TagRow[];
    latencyRows: LatencyRow[];
    rates: Record<Workload, number>;
    elapsedMs: number;
  }): void {
    const { scaleRows, tagRows, latencyRows, rates } = results;
    const latencyOf = (key: string, workload: Workload) =>
      latencyRows.find((row) => row.server.key === key && row.workload === workload);
    // The best NestJS peer: the one serving most per CPU-second (the service's lowest ratio), and
    // the one with the lowest p99 at the fixed rate.
    const nest = NEST_KEYS.filter((key) => this.measured(key));
    const perCpu = (key: string, workload: Workload) =>
      median(this.ratios('service', key, workload, efficiency));
    const bestPeers = (workload: Workload) =>
      nest.length === 0 ? Number.NaN : Math.min(...nest.map((key) => perCpu(key, workload)));
    const bestP99 = (workload: Workload) =>
      Math.min(...nest.map((key) => latencyOf(key, workload)?.p99 ?? Number.NaN));
    const ofKoa = (workload: Workload) => median(this.ratios('service', 'koa', workload));
    const floor = (workload: Workload) =>
      median(this.ratios('service', 'http', workload, efficiency));
    const onRedis = (workload: Workload) =>
      median(this.ratios('service-redis', 'service', workload));
    const workers = (workload: Workload) =>
      median(this.ratios('service-redis-workers', 'service-redis', workload));
    // What the service adds to bare Koa against what the same features add to bare Fastify, in CPU
    // µs per request within each round: above 1 the service's additions cost less than Fastify's.
    // A round where the service costs no more than bare Koa counts as met (+Infinity).
    const overheadMeasured = ['koa', 'fastify', 'fastify-features'].every((key) =>
      this.measured(key),
    );
    const overhead = (workload: Workload): number => {
      const features = this.addedIn('fastify-features', 'fastify', workload);
      const service = this.addedIn('service', 'koa', workload);
      return median(
        features.map((added, i) =>
          service[i]! <= 0 ? Number.POSITIVE_INFINITY : added / service[i]!,
        ),
      );
    };
    const infinite = (value: number) =>
      value === Number.POSITIVE_INFINITY ? 'inf' : fixed(value, 2);
    const target = (
      label: string,
      value: number,
      goal: number,
      higherIsBetter: boolean,
      unit = 'x',
    ) => {
      const met = higherIsBetter ? value >= goal : value <= goal;
      const gap = higherIsBetter ? goal / value - 1 : value / goal - 1;
      const verdict = Number.isNaN(value)
        ? 'not measured'
        : met
          ? 'met'
          : `MISSED by ${(gap * 100).toFixed(0)}%`;
      this.print(`  ${pad(label, 46)}${infinite(value)}${unit}  ${verdict}`);
    };

    this.print('targets (printed, never asserted):');
    target('GET list >= 1.0x bare Koa', ofKoa('GET'), 1.0, true);
    target('POST create >= 0.9x bare Koa', ofKoa('POST'), 0.9, true);
    if (overheadMeasured) {
      target('GET overhead >= 1.0x (features on Fastify)', overhead('GET'), 1.0, true);
      target('POST overhead >= 1.0x (features on Fastify)', overhead('POST'), 1.0, true);
    }
    // The guard of the overhead's target: no saving may come from making bare Koa's share dearer.
    target('GET per CPU-s >= 0.7x bare Koa (guard)', perCpu('koa', 'GET'), 0.7, true);
    target('POST per CPU-s >= 0.8x bare Koa (guard)', perCpu('koa', 'POST'), 0.8, true);
    if (this.measured('http')) {
      target('GET per CPU-s >= 0.55x node:http', floor('GET'), 0.55, true);
      target('POST per CPU-s >= 0.50x node:http', floor('POST'), 0.5, true);
    }
    if (nest.length > 0) {
      target('GET per CPU-s >= 1.0x best NestJS peer', bestPeers('GET'), 1.0, true);
      target('POST per CPU-s >= 1.0x best NestJS peer', bestPeers('POST'), 1.0, true);
    }
    if (nest.length > 0 && latencyRows.length > 0) {
      for (const workload of WORKLOADS) {
        const ratio = (latencyOf('service', workload)?.p99 ?? Number.NaN) / bestP99(workload);
        target(`${workload} p99 at a fixed rate <= best NestJS peer's`, ratio, 1.0, false);
      }
    }
    if (this.measured('service-redis')) {
      target('GET on Redis >= 0.65x on memory', onRedis('GET'), 0.65, true);
      target('POST on Redis >= 0.85x on memory', onRedis('POST'), 0.85, true);
    }
    const onLmdb = (workload: Workload) =>
      median(this.ratios('service-lmdb', 'service', workload, efficiency));
    const lmdbWorkers = (workload: Workload) =>
      median(this.ratios('service-lmdb-workers', 'service-lmdb', workload));
    if (this.measured('service-lmdb')) {
      target('GET on LMDB >= 0.9x memory per CPU-s', onLmdb('GET'), 0.9, true);
      target('POST on LMDB >= 0.6x memory per CPU-s', onLmdb('POST'), 0.6, true);
    }
    if (this.measured('service-lmdb-workers')) {
      target('2 workers on LMDB >= 1.3x 1 process', lmdbWorkers('GET'), 1.3, true);
      target('2 workers on LMDB >= 1.3x 1 process (POST)', lmdbWorkers('POST'), 1.3, true);
    }
    const spread = (store: string) => {
      const rows = scaleRows.filter((r) => r.store === store);
      const [smallest, largest] = [rows[0], rows.at(-1)];
      return smallest && largest && largest !== smallest ? { smallest, largest } : undefined;
    };
    const memorySpread = spread('memory');
    if (memorySpread) {
      const { smallest, largest } = memorySpread;
      const within = `at ${size(largest.plants)} within 1.2x of ${size(smallest.plants)}`;
      target(`list p50 ${within}`, largest.p50 / smallest.p50, 1.2, false);
      target(`list p99 ${within}`, largest.p99 / smallest.p99, 1.2, false);
      target('memory <= 200 MB RSS per million plants', largest.mbPerMillion, 200, false, ' MB');
    }
    const lmdbSpread = spread('lmdb');
    if (lmdbSpread) {
      const { smallest, largest } = lmdbSpread;
      const within = `at ${size(largest.plants)} within 1.2x of ${size(smallest.plants)}`;
      target(`LMDB list p50 ${within}`, largest.p50 / smallest.p50, 1.2, false);
      target(`LMDB list p99 ${within}`, largest.p99 / smallest.p99, 1.2, false);
    }
    const tagStores = [...new Set(tagRows.map((row) => row.store))].flatMap((store) => {
      const ratios = tagRatios(tagRows, store);
      return ratios === undefined ? [] : [{ store, ...ratios }];
    });
    for (const { store, plants, p50, p99, getSmall, getLarge } of tagStores) {
      const within = `at ${size(plants)} <= 1.2x page at ${size(TAGS_SMALL)}`;
      target(`${store} tags p50 ${within}`, p50, 1.2, false);
      target(`${store} tags p99 ${within}`, p99, 1.2, false);
      target(`${store} GET by id >= list per CPU-s (${size(TAGS_SMALL)})`, getSmall, 1.0, true);
      target(`${store} GET by id >= list per CPU-s (${size(plants)})`, getLarge, 1.0, true);
    }
    this.print(`elapsed: ${(results.elapsedMs / 1000).toFixed(0)} s`);

    const { limitations, problems } = this.runner;
    if (limitations.length > 0) {
      this.print();
      for (const limitation of limitations) this.print(`limitation: ${limitation}`);
    }
    if (problems.length > 0) {
      this.print();
      this.print('PROBLEMS (figures above are not trustworthy):');
      for (const problem of problems) this.print(`  ${problem}`);
      process.exitCode = 1;
    }

    const rounds = `median of ${this.rounds} rounds`;
    const both = (of: (workload: Workload) => number) =>
      `GET ${fixed(of('GET'), 2)} POST ${fixed(of('POST'), 2)}`;
    if (this.measured('http')) {
      this.print(`bench-floor: ${both(floor)} (service/node:http per CPU-s, ${rounds})`);
    }
    if (this.measured('service-redis')) {
      this.print(`bench-redis: ${both(onRedis)} (service on Redis/service on memory, ${rounds})`);
    }
    if (this.measured('service-redis-workers')) {
      this.print(
        `bench-workers: ${both(workers)} (${WORKERS} workers/1 process on one Redis, req/s, ${rounds})`,
      );
    }
    if (this.measured('service-lmdb')) {
      const workersText = this.measured('service-lmdb-workers')
        ? `; ${WORKERS} workers/1 process ${both(lmdbWorkers)} (req/s)`
        : '';
      const largest = lmdbSpread?.largest;
      const scaling =
        lmdbSpread === undefined
          ? ''
          : `; list at ${size(lmdbSpread.largest.plants)}/${size(lmdbSpread.smallest.plants)} p50 ${fixed(lmdbSpread.largest.p50 / lmdbSpread.smallest.p50, 2)} p99 ${fixed(lmdbSpread.largest.p99 / lmdbSpread.smallest.p99, 2)}; ${fixed(diskPerMillion(largest!), 0)} MB on disk per million plants; serve starts in ${fixed(largest!.startupMs, 0)} ms at ${size(largest!.plants)} (${fixed(lmdbSpread.smallest.startupMs, 0)} ms at ${size(lmdbSpread.smallest.plants)})`;
      // What the flush costs: durable commits against commits answered before they reach the disk.
      const flush = (workload: Workload) =>
        median(this.ratios('service-lmdb', 'service-lmdb-commit-only', workload, efficiency));
      const flushText = this.measured('service-lmdb-commit-only')
        ? `; durable/commit-only ${both(flush)} (per CPU-s)`
        : '';
      this.print(
        `bench-lmdb: ${both(onLmdb)} (service on LMDB, durable commits/service on memory, per CPU-s, ${rounds})${flushText}${workersText}${scaling}`,
      );
    }
    if (tagStores.length > 0) {
      const { plants } = tagStores[0]!;
      this.print(
        `bench-tags: ${tagStores.map((r) => `${r.store} p50 ${fixed(r.p50, 2)} p99 ${fixed(r.p99, 2)} per CPU-s ${fixed(r.perCpu, 2)}`).join(', ')} (GET ${LIST_PATH}&tags=${FILTER_TAG} at ${size(plants)} plants, ${100 / TAG_EVERY}% tagged/GET ${LIST_PATH} at ${size(TAGS_SMALL)})`,
      );
      this.print(
        `bench-get: ${tagStores.map((r) => `${r.store} ${fixed(r.getSmall, 2)} (${size(plants)} ${fixed(r.getLarge, 2)})`).join(', ')} (GET /plants/{id}/GET ${LIST_PATH} per CPU-s, at ${size(TAGS_SMALL)} plants; at ${size(plants)} against the list at ${size(TAGS_SMALL)})`,
      );
    }
    const adds = (key: string, base: string) =>
      `GET +${this.added(key, base, 'GET')} POST +${this.added(key, base, 'POST')} µs/req`;
    if (this.measured('koa-spin') && this.measured('koa')) {
      this.print(
        `bench-spin: ${this.options.spinUs} µs of work a request add ${adds('koa-spin', 'koa')} to bare Koa (CPU of the server, ${rounds})`,
      );
    }
    if (this.measured('service-traced')) {
      this.print(
        `bench-observe: access log + metrics ${adds('service', 'service-quiet')}; tracing on ${adds('service-traced', 'service')} (CPU of the server, ${rounds})`,
      );
    }
    if (overheadMeasured) {
      const micros = (workload: Workload) =>
        `${workload} ${this.added('fastify-features', 'fastify', workload)}/${this.added('service', 'koa', workload)}`;
      this.print(
        `bench-overhead: GET ${infinite(overhead('GET'))} POST ${infinite(overhead('POST'))} ((Fastify + features - Fastify)/(service - bare Koa), CPU µs per request ${micros('GET')} ${micros('POST')}, ${rounds})`,
      );
    }
    if (nest.length > 0) {
      this.print(`bench-peers: ${both(bestPeers)} (service/best NestJS peer per CPU-s, ${rounds})`);
    }
    if (nest.length > 0 && latencyRows.length > 0) {
      const p99 = (workload: Workload) =>
        `${fixed(latencyOf('service', workload)?.p99, 2)} / ${fixed(bestP99(workload), 2)}`;
      this.print(
        `bench-latency: GET p99 ${p99('GET')} POST p99 ${p99('POST')} (ms, service / best NestJS peer, at ${rates.GET} / ${rates.POST} req/s)`,
      );
    }
    const last = `bench: ${both(ofKoa)} (service/bare Koa, median of ${this.rounds} rounds)`;
    this.out.push(last);
    this.write({ scaleRows, tagRows, latencyRows, rates });
    console.log(last);
  }

  private write({
    scaleRows,
    tagRows,
    latencyRows,
    rates,
  }: {
    scaleRows: ScaleRow[];
    tagRows: TagRow[];
    latencyRows: LatencyRow[];
    rates: Record<Workload, number>;
  }): void {
    mkdirSync(`${ROOT}bench/results`, { recursive: true });
    const name = this.options.quick ? 'quick' : 'latest';
    writeFileSync(`${ROOT}bench/results/${name}.txt`, `${this.out.join('\n')}\n`);
    const json = {
      settings: this.options.settings,
      pinned: pinning !== undefined,
      stores: this.plan.stores.map(({ kind, what }) => ({ kind, what })),
      samples: Object.fromEntries(this.runner.samples),
      scaling: scaleRows,
      tags: tagRows,
      latency: {
        rates,
        rows: latencyRows.map(({ server, ...row }) => ({ server: server.key, ...row })),
      },
      problems: this.runner.problems,
      limitations: this.runner.limitations,
    };
    writeFileSync(`${ROOT}bench/results/${name}.json`, `${JSON.stringify(json, null, 2)}\n`);
  }
}
