import { BENCH_TOKEN, benchTokens, FILTER_TAG, TAG_EVERY } from './common.js';
import type { LoadJob, LoadResult, PacedJob } from './load.js';
import {
  cpuSeconds,
  pinning,
  rssMb,
  type startLoader,
  startServer as startProcess,
  stopServer,
  type Running,
} from './proc.js';
import {
  CONNECTIONS,
  LIST_PATH,
  listPaths,
  SCALE_CONNECTIONS,
  SLICE_SECONDS,
  TAGS_PAGES,
  TAGS_SMALL,
  type RunSettings,
} from './run-options.js';
import { latencyServers, type RunPlan, type ScaleTarget, type ServerSpec } from './run-plan.js';
import type { BenchStore } from './stores.js';

// How a run runs: servers started fresh and seeded, the load generator (its own process) asked for
// each slice of load, and the samples, problems and limitations it gathers.

export type Workload = 'GET' | 'POST';
export const WORKLOADS = ['GET', 'POST'] as const;

export interface Sample {
  rps: number;
  /** CPU time the server spent per request served, in microseconds. */
  cpuUs: number;
  /** CPU time its store server (Redis, MongoDB) spent per request, when the run started it. */
  storeUs: number;
  p50: number;
  p99: number;
  rss: number;
}

export interface LatencyRow {
  server: ServerSpec;
  workload: Workload;
  rps: number;
  p50: number;
  p99: number;
}

export interface ScaleRow {
  store: string;
  plants: number;
  rps: number;
  p50: number;
  p99: number;
  rss: number;
  mbPerMillion: number;
  seedMs: number;
  /** The embedded store: bytes its files take on disk, and the service's start-up on them, in ms. */
  diskBytes?: number;
  startupMs?: number;
}

/** One request of the tags scenario on one store: a page, a filtered page, or one plant by id. */
export interface TagRow {
  store: string;
  request: 'list' | 'filtered' | 'get';
  /** Plants the tenant holds. */
  plants: number;
  rps: number;
  p50: number;
  p99: number;
  /** CPU time the server spent per request served, in microseconds. */
  cpuUs: number;
}

/** Asks the load generator's process (proc.ts's startLoader) for a job. */
export type Ask = ReturnType<typeof startLoader>['ask'];

type TimedJob = Extract<LoadJob, { duration: number }>;

export class BenchRunner {
  /** `${server.key} ${workload}` -> one sample per round. */
  readonly samples = new Map<string, Sample[]>();
  readonly problems: string[] = [];
  /**
   * What a store known to be too slow here (FerretDB on SQLite, run on request) fails to answer: a
   * limitation of the run, printed as such, not a problem that voids the other figures.
   */
  readonly limitations: string[] = [];
  private readonly started = Date.now();
  private starts = 0;

  constructor(
    private readonly plan: RunPlan,
    private readonly settings: RunSettings,
    private readonly ask: Ask,
  ) {}

  samplesOf(key: string, workload: Workload): Sample[] {
    return this.samples.get(`${key} ${workload}`) ?? [];
  }

  /** A failure of the run, or a limitation when it is a store known to be too slow here. */
  report(store: BenchStore | undefined, what: string): void {
    (store?.what.startsWith('ferretdb') === true ? this.limitations : this.problems).push(what);
  }

  /**
   * One round: every server started fresh and seeded, then each workload measured on each server
   * in turn (A B C D for GET, then A B C D for POST), so that the measurements compared in a ratio
   * are seconds apart, not minutes. Idle servers wait on their own core; only one is under load at
   * a time.
   */
  async measureRound(round: number): Promise<void> {
    const running = new Map<ServerSpec, Running>();
    try {
      for (const server of this.plan.servers) {
        const what = `round ${round} ${server.label}`;
        const started = await this.startSeeded(server, running, what);
        const page = await get(started.url, LIST_PATH);
        const plants = page.status === 200 ? (JSON.parse(page.text) as unknown[]) : [];
        if (plants.length !== 20) {
          this.report(
            server.store,
            `${what}: GET ${LIST_PATH} answered ${page.status} ${page.text.slice(0, 200)}`,
          );
        }
      }
      for (const workload of WORKLOADS) await this.measureWorkload(round, workload, running);
    } finally {
      await Promise.all([...running.values()].map(stopServer));
    }
  }

  private async measureWorkload(
    round: number,
    workload: Workload,
    running: Map<ServerSpec, Running>,
  ): Promise<void> {
    const jobs = new Map<ServerSpec, TimedJob>();
    for (const [server, { url }] of running) {
      const job: TimedJob =
        workload === 'GET'
          ? {
              kind: 'get',
              url,
              paths: listPaths(this.settings.coldPages),
              connections: CONNECTIONS,
              duration: 0,
            }
          : { kind: 'post', url, connections: CONNECTIONS, duration: 0 };
      jobs.set(server, job);
      await this.load({ ...job, duration: this.settings.warmup });
    }
    // The measured seconds alternate between the servers in slices, so a burst of load from
    // elsewhere on the machine falls on all of them alike.
    const slices = Math.max(1, Math.round(this.settings.duration / SLICE_SECONDS));
    const totals = new Map<
      ServerSpec,
      { requests: number; seconds: number; cpu: number; storeCpu: number; served: number }
    >();
    for (let slice = 0; slice < slices; slice++) {
      for (const [server, job] of jobs) {
        const duration = this.settings.duration / slices;
        const pid = running.get(server)!.child.pid;
        const cpuBefore = cpuSeconds(pid);
        const storeBefore = cpuSeconds(server.store?.pid);
        const result = this.check(
          `round ${round} ${server.label} ${workload}`,
          await this.load({ ...job, duration, tag: server.key }),
          server.store,
        );
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
          cpu: total.cpu + cpuSeconds(pid) - cpuBefore,
          storeCpu: total.storeCpu + cpuSeconds(server.store?.pid) - storeBefore,
          served: total.served + result.ok,
        });
      }
    }
    for (const [server, { child }] of running) {
      const { requests, seconds, cpu, storeCpu, served } = totals.get(server)!;
      const { p50, p99 } = await this.collect(server.key);
      const key = `${server.key} ${workload}`;
      this.samples.set(key, [
        ...(this.samples.get(key) ?? []),
        {
          rps: requests / seconds,
          p50,
          p99,
          rss: rssMb(child.pid),
          cpuUs: (cpu / served) * 1e6,
          storeUs: (storeCpu / served) * 1e6,
        },
      ]);
      this.progress(
        `round ${round} ${server.label} ${workload}: ${(requests / seconds).toFixed(0)} req/s`,
      );
    }
  }

  /**
   * Every server started fresh and seeded, then offered the same rate, evenly spaced over the same
   * connections, in 1 s slices alternating between the servers as in the rounds: p50 and p99 at a
   * load every one of them sustains, instead of at each one's own saturation.
   */
  async measureLatency(rates: Record<Workload, number>): Promise<LatencyRow[]> {
    const running = new Map<ServerSpec, Running>();
    const rows: LatencyRow[] = [];
    const { warmup, latencyDuration } = this.settings;
    try {
      for (const server of latencyServers(this.plan)) {
        await this.startSeeded(server, running, `latency ${server.label}`);
      }
      for (const workload of WORKLOADS) {
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
          this.check(
            `latency ${server.label} ${workload} warm-up`,
            await this.load(job(url, Math.min(warmup, 1))),
          );
        }
        const slices = Math.max(1, Math.round(latencyDuration / SLICE_SECONDS));
        const served = new Map<ServerSpec, number>();
        for (let slice = 0; slice < slices; slice++) {
          for (const [server, { url }] of running) {
            const result = this.check(
              `latency ${server.label} ${workload}`,
              await this.load(job(url, latencyDuration / slices, `latency ${server.key}`)),
            );
            served.set(server, (served.get(server) ?? 0) + result.requests);
          }
        }
        for (const server of running.keys()) {
          const { p50, p99 } = await this.collect(`latency ${server.key}`);
          const rps = (served.get(server) ?? 0) / latencyDuration;
          rows.push({ server, workload, rps, p50, p99 });
          this.progress(
            `latency ${server.label} ${workload}: p50 ${fixed(p50, 2)} p99 ${fixed(p99, 2)} ms`,
          );
        }
      }
    } finally {
      await Promise.all([...running.values()].map(stopServer));
    }
    return rows;
  }

  /**
   * Every size of one store side by side, each in its own harness process (the real service,
   * filled in-process), with the measured seconds alternating between them in slices as in the
   * rounds.
   */
  async measureScale(target: ScaleTarget): Promise<ScaleRow[]> {
    const running: {
      plants: number;
      server: Running;
      seeded: { rssBefore: number; rssAfter: number; seedMs: number; diskBytes?: number };
    }[] = [];
    const { warmup, scaleDuration } = this.settings;
    try {
      for (const plants of target.sizes) {
        const server = await this.startHarness(target, plants, 'scale');
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
      for (const job of jobs) await this.load({ ...job, duration: Math.min(warmup, 1) });
      const slices = Math.max(1, Math.round(scaleDuration / SLICE_SECONDS));
      const totals = jobs.map(() => ({ requests: 0, seconds: 0 }));
      const store = this.plan.stores.find((candidate) => candidate.kind === target.name);
      for (let slice = 0; slice < slices; slice++) {
        for (const [i, job] of jobs.entries()) {
          const what = `scaling ${target.name} ${running[i]!.plants}`;
          const result = this.check(
            what,
            await this.load({ ...job, duration: scaleDuration / slices, tag: what }),
            store,
          );
          totals[i]!.requests += result.requests;
          totals[i]!.seconds += result.seconds;
        }
      }
      const rows: ScaleRow[] = [];
      for (const [i, { plants, server, seeded }] of running.entries()) {
        const what = `scaling ${target.name} ${plants}`;
        const { p50, p99 } = await this.collect(what);
        const rps = totals[i]!.requests / totals[i]!.seconds;
        this.progress(`${what}: ${rps.toFixed(0)} req/s`);
        rows.push({
          store: target.name,
          plants,
          rps,
          p50,
          p99,
          rss: rssMb(server.child.pid),
          mbPerMillion: ((seeded.rssAfter - seeded.rssBefore) / 2 ** 20 / plants) * 1e6,
          seedMs: seeded.seedMs,
          ...(seeded.diskBytes !== undefined && { diskBytes: seeded.diskBytes }),
        });
      }
      if (target.serveEnv !== undefined) {
        // Start-up on the filled store: `serve` from spawn to its listening line, the harness gone.
        await Promise.all(running.map(({ server }) => stopServer(server)));
        for (const row of rows) row.startupMs = await this.startupMs(target.serveEnv(row.plants));
      }
      return rows;
    } finally {
      await Promise.all(running.map(({ server }) => stopServer(server)));
    }
  }

  /**
   * The tags scenario on one store: `GET /plants?tags=aroid&limit=20` on a tenant of `tagPlants`
   * plants of which every TAG_EVERY-th (1%) carries the tag, against `GET /plants?limit=20` on a
   * tenant of TAGS_SMALL plants (each side the first page and the ones after it by its `Link`),
   * the unfiltered pages on the large tenant too (what the filter itself costs, the heap alike),
   * and `GET /plants/{id}` on both tenants; each tenant filled through the port in its own harness
   * process, the five requests alternating in slices as in the scaling rows, the server's CPU
   * counted per slice.
   */
  async measureTags(target: ScaleTarget): Promise<TagRow[]> {
    const { tagPlants, warmup, scaleDuration } = this.settings;
    const store = this.plan.stores.find((candidate) => candidate.kind === target.name);
    const servers: Running[] = [];
    try {
      const small = await this.startHarness(target, TAGS_SMALL, 'tags');
      servers.push(small);
      const large = await this.startHarness(target, tagPlants, 'tags', TAG_EVERY);
      servers.push(large);
      const what = `tags ${target.name}`;
      // Ids spread over each tenant, all of them present.
      const ids = (plants: number) =>
        Array.from({ length: 20 }, (_, i) => `/plants/${Math.ceil(((i + 0.5) * plants) / 20)}`);
      const sides = [
        {
          request: 'list' as const,
          plants: TAGS_SMALL,
          server: small,
          paths: await this.pages(small.url, LIST_PATH, `${what} list ${TAGS_SMALL}`, store),
        },
        {
          request: 'list' as const,
          plants: tagPlants,
          server: large,
          paths: await this.pages(large.url, LIST_PATH, `${what} list ${tagPlants}`, store),
        },
        {
          request: 'filtered' as const,
          plants: tagPlants,
          server: large,
          paths: await this.pages(
            large.url,
            `${LIST_PATH}&tags=${FILTER_TAG}`,
            `${what} filtered`,
            store,
          ),
        },
        { request: 'get' as const, plants: TAGS_SMALL, server: small, paths: ids(TAGS_SMALL) },
        { request: 'get' as const, plants: tagPlants, server: large, paths: ids(tagPlants) },
      ];
      const job = (paths: string[], url: string) =>
        ({ kind: 'get', url, paths, connections: SCALE_CONNECTIONS, duration: 0 }) as const;
      for (const side of sides) {
        await this.load({ ...job(side.paths, side.server.url), duration: Math.min(warmup, 1) });
      }
      const slices = Math.max(1, Math.round(scaleDuration / SLICE_SECONDS));
      const totals = sides.map(() => ({ requests: 0, seconds: 0, cpu: 0, served: 0 }));
      for (let slice = 0; slice < slices; slice++) {
        for (const [i, side] of sides.entries()) {
          const tag = `${what} ${side.request} ${side.plants}`;
          const pid = side.server.child.pid;
          const cpuBefore = cpuSeconds(pid);
          const result = this.check(
            tag,
            await this.load({
              ...job(side.paths, side.server.url),
              duration: scaleDuration / slices,
              tag,
            }),
            store,
          );
          totals[i]!.requests += result.requests;
          totals[i]!.seconds += result.seconds;
          totals[i]!.cpu += cpuSeconds(pid) - cpuBefore;
          totals[i]!.served += result.ok;
        }
      }
      const rows: TagRow[] = [];
      for (const [i, { request, plants }] of sides.entries()) {
        const { p50, p99 } = await this.collect(`${what} ${request} ${plants}`);
        const { requests, seconds, cpu, served } = totals[i]!;
        rows.push({
          store: target.name,
          request,
          plants,
          rps: requests / seconds,
          p50,
          p99,
          cpuUs: (cpu / served) * 1e6,
        });
        this.progress(`${what} ${request} ${plants}: ${(requests / seconds).toFixed(0)} req/s`);
      }
      return rows;
    } finally {
      await Promise.all(servers.map(stopServer));
    }
  }

  /**
   * The paths of TAGS_PAGES pages: `first`, then each page's `Link: rel="next"` (which must keep the
   * filter). Each page must hold 20 plants by ascending id and, when `first` filters, only plants
   * of FILTER_TAG (every TAG_EVERY-th id), or it is reported: a store that ignored the filter would
   * be measured on the wrong pages.
   */
  private async pages(
    url: string,
    first: string,
    what: string,
    store: BenchStore | undefined,
  ): Promise<string[]> {
    const paths = [first];
    const filtered = first.includes('tags=');
    for (let page = 1; ; page++) {
      const response = await fetch(url + paths.at(-1)!, {
        headers: { authorization: `Bearer ${BENCH_TOKEN}` },
      });
      const text = await response.text();
      const plants =
        response.status === 200 ? (JSON.parse(text) as { name: string; tag?: string }[]) : [];
      // A Plant carries no id: the harness's names hold it (plantName).
      const ids = plants.map((plant) => Number(plant.name.slice('plant-'.length)));
      const wrong =
        plants.length !== 20 ||
        ids.some((id, i) => i > 0 && !(id > ids[i - 1]!)) ||
        (filtered && plants.some((plant, i) => plant.tag !== FILTER_TAG || ids[i]! % TAG_EVERY));
      const next = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
      if (wrong || next === undefined || (filtered && !next.includes(`tags=${FILTER_TAG}`))) {
        this.report(
          store,
          `${what}: page ${page} (GET ${paths.at(-1)}) answered ${response.status} ${text.slice(0, 200)} Link ${next ?? 'none'}`,
        );
        return paths;
      }
      if (page === TAGS_PAGES) return paths;
      paths.push(next);
    }
  }

  /** The scaling harness (bench/servers/scale.ts) on `target` filled with `plants` plants. */
  private startHarness(
    target: ScaleTarget,
    plants: number,
    use: string,
    tagEvery = 0,
  ): Promise<Running> {
    return this.startServer(
      ['--expose-gc', '--import', 'tsx', 'bench/servers/scale.ts'],
      {
        BENCH_STORAGE: JSON.stringify(target.storage(plants, use)),
        BENCH_PLANTS: String(plants),
        BENCH_TAG_EVERY: String(tagEvery),
        LOG_LEVEL: 'warn',
      },
      undefined,
      // A million durable plants take a while to write on a shared machine.
      600_000,
    );
  }

  /** Milliseconds from spawning `serve` with `env` to its listening line. */
  private async startupMs(env: Record<string, string>): Promise<number> {
    const started = performance.now();
    const server = await this.startServer(['dist/cli.js', 'serve'], env);
    const ms = performance.now() - started;
    await stopServer(server);
    return ms;
  }

  /** Every request of a run must have succeeded, or the figures mean nothing. */
  private check(what: string, result: LoadResult, store?: BenchStore): LoadResult {
    if (result.non2xx > 0 || result.errors > 0 || result.ok === 0) {
      this.report(
        store,
        `${what}: ${result.ok} ok, ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`,
      );
    }
    return result;
  }

  /**
   * Starts the server (kept in `running`, which the caller stops) and seeds it with the plants
   * every workload reads; a seed that is not all 2xx is reported as `<what> seed`.
   */
  private async startSeeded(
    server: ServerSpec,
    running: Map<ServerSpec, Running>,
    what: string,
  ): Promise<Running> {
    const started = await this.startServer(server.nodeArgs, server.env ?? {}, server.cores);
    running.set(server, started);
    const seed = await this.load({
      kind: 'seed',
      url: started.url,
      connections: 32,
      from: 1,
      count: this.settings.seed,
    });
    this.check(`${what} seed`, seed, server.store);
    return started;
  }

  private startServer(
    nodeArgs: string[],
    env: Record<string, string>,
    cores = pinning?.server ?? '',
    waitMs?: number,
  ): Promise<Running> {
    // Each start gets its own tenant, so that stores that outlive the process never see an id twice.
    const tenant = `bench-${process.pid}-${++this.starts}`;
    return startProcess(
      nodeArgs,
      { PLANT_STORE_TOKENS: benchTokens(tenant), ...env },
      cores,
      waitMs,
    );
  }

  private load(job: LoadJob | PacedJob): Promise<LoadResult> {
    return this.ask<LoadResult>(job);
  }

  private collect(tag: string): Promise<{ p50: number; p99: number }> {
    return this.ask({ kind: 'collect', tag });
  }

  private progress(line: string): void {
    process.stderr.write(`  ${line} (${((Date.now() - this.started) / 1000).toFixed(0)} s)\n`);
  }
}

async function get(url: string, path: string): Promise<{ status: number; text: string }> {
  const response = await fetch(url + path, { headers: { authorization: `Bearer ${BENCH_TOKEN}` } });
  return { status: response.status, text: await response.text() };
}

/** A figure nothing was measured for (no 2xx answer in a slice) prints as '-'. */
export const fixed = (value: number | null | undefined, digits: number): string =>
  typeof value !== 'number' || Number.isNaN(value) ? '-' : value.toFixed(digits);
