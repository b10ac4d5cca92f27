import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_TENANT, benchTokens, plantName, plantTag } from './common.js';
import type { LoadResult } from './load.js';
import {
  cpuSeconds,
  nodeCommand,
  onLoadCore,
  pinning,
  ROOT,
  sleep,
  startLoader,
  startServer,
  stopServer,
} from './proc.js';
import { benchStores } from './stores.js';

// `npm run bench:migrate [-- --sizes 100000,1000000 --tenants 10 --post-seconds 5]`: `plant-store
// import` and `export` (dist/cli.js) of N plants on a private redis-server, each command its own
// process pinned to core 0 (redis-server on core 1), timed to its exit, its peak RSS (VmHWM) read
// from /proc while it runs; then the service's own POST /plants rate on the same Redis (autocannon
// on core 1, 50 connections), and the import rate as a multiple of it.

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '100000,1000000' },
    tenants: { type: 'string', default: '10' },
    'post-seconds': { type: 'string', default: '5' },
  },
});
const SIZES = values.sizes.split(',').map(Number);
const TENANTS = Number(values.tenants);
const POST_SECONDS = Number(values['post-seconds']);
const CLI = 'dist/cli.js';

/** Writes an export of `count` plants over TENANTS tenants, as `plant-store export` writes it. */
async function writeExport(path: string, count: number): Promise<void> {
  const out = createWriteStream(path);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write(
    `{"format":"plant-store-export","version":1,"takenAt":"${new Date().toISOString()}","tenants":null}\n`,
  );
  const perTenant = Math.ceil(count / TENANTS);
  let chunk = '';
  for (let i = 0; i < count; i++) {
    const tenant = `${BENCH_TENANT}-${String(Math.floor(i / perTenant)).padStart(3, '0')}`;
    chunk += `{"tenant":"${tenant}","id":${i},"name":"${plantName(i)}","tag":"${plantTag(i)}"}\n`;
    if (chunk.length > 65_536) {
      await write(chunk);
      chunk = '';
    }
  }
  await write(`${chunk}{"format":"plant-store-export","end":true,"plants":${count}}\n`);
  out.end();
  await once(out, 'close');
}

/** Peak resident memory of a running process in MB (VmHWM), NaN once it is gone. */
function peakRssMb(pid: number | undefined): number {
  try {
    const kb = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? Number.NaN : Number(kb) / 1024;
  } catch {
    return Number.NaN;
  }
}

/** Runs the CLI on core 0 to its exit: seconds, peak RSS, its stderr; throws unless it exits 0. */
async function runCli(
  cliArgs: string[],
  env: Record<string, string>,
): Promise<{ seconds: number; peakMb: number; cpu: number; stderr: string }> {
  const [command, commandArgs] = nodeCommand(pinning?.server ?? '', [CLI, ...cliArgs]);
  const started = performance.now();
  const child = spawn(command, commandArgs, {
    cwd: ROOT,
    env: { PATH: process.env.PATH, NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  const exited = once(child, 'close');
  let peakMb = Number.NaN;
  let cpu = Number.NaN;
  let done = false;
  void exited.then(() => (done = true));
  // Under taskset the pid is taskset's until it execs node: the same pid, so /proc follows.
  while (!done) {
    const now = peakRssMb(child.pid);
    if (!Number.isNaN(now)) peakMb = Number.isNaN(peakMb) ? now : Math.max(peakMb, now);
    // The last reading before it exits: at most 20 ms of its CPU time is missed.
    const used = cpuSeconds(child.pid);
    if (!Number.isNaN(used)) cpu = used;
    await sleep(20);
  }
  const seconds = (performance.now() - started) / 1000;
  if (child.exitCode !== 0)
    throw new Error(`${cliArgs.join(' ')} exited ${child.exitCode}: ${stderr}`);
  return { seconds, peakMb, cpu, stderr };
}

const lines: string[] = [];
const print = (line = '') => {
  lines.push(line);
  console.log(line);
};

async function main(): Promise<void> {
  print(`plant-store bench migrate: ${new Date().toISOString()}`);
  print(
    `machine: ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${cpus().length} cores, Node ${process.version}, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  print(
    pinning
      ? `pinned: yes (CLI and service on core ${pinning.server}; redis-server and autocannon on core ${pinning.load})`
      : 'pinned: no',
  );
  const [redis] = await benchStores(onLoadCore, new Set(['mongodb']));
  if (redis === undefined) throw new Error('no redis-server installed and no BENCH_REDIS_URL');
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-bench-migrate-'));
  const rows: {
    size: number;
    importRate: number;
    importMb: number;
    importCpuUs: number;
    exportRate: number;
    exportMb: number;
  }[] = [];
  /** CPU µs per plant of the CLI and redis-server together. */
  const cpuUs = (cli: number, redisBefore: number, size: number) =>
    ((cli + cpuSeconds(redis.pid) - redisBefore) / size) * 1e6;
  try {
    for (const size of SIZES) {
      const file = join(dir, `in-${size}.ndjson`);
      await writeExport(file, size);
      const env = {
        PLANT_STORE_STORAGE: 'redis',
        REDIS_URL: redis.url,
        PLANT_STORE_REDIS_PREFIX: `bench-migrate-${size}:`,
      };
      const redisBefore = cpuSeconds(redis.pid);
      const imported = await runCli(['import', '--input', file], env);
      const importCpuUs = cpuUs(imported.cpu, redisBefore, size);
      const redisBeforeExport = cpuSeconds(redis.pid);
      if (!imported.stderr.includes(`imported ${size} plants`)) throw new Error(imported.stderr);
      const exported = await runCli(['export', '--output', join(dir, `out-${size}.ndjson`)], env);
      if (!exported.stderr.includes(`exported ${size} plants`)) throw new Error(exported.stderr);
      const exportCpuUs = cpuUs(exported.cpu, redisBeforeExport, size);
      const row = {
        size,
        importRate: size / imported.seconds,
        importMb: imported.peakMb,
        importCpuUs,
        exportRate: size / exported.seconds,
        exportMb: exported.peakMb,
      };
      rows.push(row);
      print(
        `${size} plants (${TENANTS} tenants): import ${imported.seconds.toFixed(1)} s, ${Math.round(row.importRate)} plants/s, peak RSS ${row.importMb.toFixed(0)} MB, ${importCpuUs.toFixed(1)} CPU µs/plant; export ${exported.seconds.toFixed(1)} s, ${Math.round(row.exportRate)} plants/s, peak RSS ${row.exportMb.toFixed(0)} MB, ${exportCpuUs.toFixed(1)} CPU µs/plant (CLI and redis-server)`,
      );
      rmSync(file);
      rmSync(join(dir, `out-${size}.ndjson`));
    }

    // The service's own creates on the same Redis: what an import by POST /plants would manage.
    const { ready, ask, stop } = startLoader();
    await ready;
    const service = await startServer([CLI, 'serve'], {
      PLANT_STORE_STORAGE: 'redis',
      REDIS_URL: redis.url,
      PLANT_STORE_REDIS_PREFIX: 'bench-migrate-post:',
      PLANT_STORE_TOKENS: benchTokens(),
      PLANT_STORE_DATA_DIR: join(dir, 'data'),
      LOG_LEVEL: 'warn',
    });
    let post: LoadResult;
    let postCpuUs: number;
    try {
      await ask<LoadResult>({ kind: 'post', url: service.url, connections: 50, duration: 1 });
      const before = cpuSeconds(service.child.pid) + cpuSeconds(redis.pid);
      post = await ask<LoadResult>({
        kind: 'post',
        url: service.url,
        connections: 50,
        duration: POST_SECONDS,
      });
      const used = cpuSeconds(service.child.pid) + cpuSeconds(redis.pid) - before;
      postCpuUs = (used / post.requests) * 1e6;
    } finally {
      await stopServer(service);
      stop();
    }
    if (post.non2xx + post.errors > 0)
      throw new Error(`POST /plants: ${post.non2xx} non-2xx, ${post.errors} errors`);
    print(
      `POST /plants on the same Redis: ${Math.round(post.rps)} plants/s (50 connections, ${POST_SECONDS} s)`,
    );
    const first = rows[0]!;
    const last = rows[rows.length - 1]!;
    print();
    print(
      `bench-migrate: import/POST ${(last.importRate / post.rps).toFixed(1)}x at ${last.size}, ${(first.importRate / post.rps).toFixed(1)}x at ${first.size} (plants/s); ` +
        `per CPU-second ${(postCpuUs / last.importCpuUs).toFixed(1)}x at ${last.size}; ` +
        `peak RSS ${last.size}/${first.size}: import ${(last.importMb / first.importMb).toFixed(2)}x, export ${(last.exportMb / first.exportMb).toFixed(2)}x`,
    );
  } finally {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
