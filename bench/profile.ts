import { spawn, spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_TENANT, BENCH_TOKEN, benchTokens, LISTENING } from './common.js';
import { receive, runLoad, type Deliveries } from './load.js';
import { cpuSeconds, nodeCommand, pinning } from './proc.js';

// `npm run bench:profile -- GET|POST [seconds]`: runs the built service under `node --cpu-prof`,
// seeds 10,000 plants, puts one workload on it, and prints where the time went: self time by
// package or source file, and the functions with the most self and inclusive time. The profile
// itself is left in bench/results/profiles/ for Chrome DevTools or speedscope. `WEBHOOK` is POST with
// one webhook subscription (receiver in this process), profiled until every create was delivered;
// the storage is memory, or Redis with PLANT_STORE_STORAGE=redis and REDIS_URL.

// `--plants N` builds the service with N plants put straight through the port
// (bench/servers/scale.ts, as the scaling rows do) instead of 10,000 POSTs, to see what the store's
// size does to a request; only the samples of the load count then, not the filling. Either way the
// run also prints the server's CPU per request (/proc) and the collections under load
// (`--trace-gc`, whose lines go to a file of their own). Server on core 0, load on core 1.
const ROOT = new URL('..', import.meta.url).pathname;
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { plants: { type: 'string' } },
});
const workload = (positionals[0] ?? 'GET').toUpperCase();
const seconds = Number(positionals[1] ?? 10);
const plants = values.plants === undefined ? undefined : Number(values.plants);
const DIR = `${ROOT}bench/results/profiles`;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  startTime?: number;
  endTime?: number;
  timeDeltas?: number[];
}

function where(url: string): string {
  if (url === '') return '(native/V8)';
  if (url.startsWith('node:')) return 'node core';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (pkg !== undefined) return pkg;
  const own = /\/dist\/(.*)$/.exec(url)?.[1];
  return own === undefined ? url : `src/${own.replace(/\.js$/, '.ts')}`;
}

/** The samples taken in the last `ms` of the profile (the load), the rest dropped. */
function lastSamples(profile: Profile, ms: number): Profile {
  const { samples, timeDeltas, endTime } = profile;
  if (timeDeltas === undefined || endTime === undefined) return profile;
  let at = profile.startTime ?? 0;
  const kept: number[] = [];
  for (let i = 0; i < samples.length; i++) {
    at += timeDeltas[i] ?? 0;
    if (at >= endTime - ms * 1000) kept.push(samples[i]!);
  }
  return { ...profile, samples: kept };
}

/** Scavenges and mark-compacts (count, ms) in a --trace-gc text from `from` on. */
function gcCounts(text: string): string {
  const kinds = new Map<string, { count: number; ms: number }>();
  for (const match of text.matchAll(
    /ms: (Scavenge|Mark-Compact|Mark-sweep|Minor Mark-Sweep)[^,]*, ([\d.]+) \/ [\d.]+ ms/g,
  )) {
    const kind = kinds.get(match[1]!) ?? { count: 0, ms: 0 };
    kind.count++;
    kind.ms += Number(match[2]);
    kinds.set(match[1]!, kind);
  }
  return (
    [...kinds]
      .map(([kind, { count, ms }]) => `${kind} ${count} (${ms.toFixed(0)} ms)`)
      .join(', ') || 'none'
  );
}

function report(profile: Profile): void {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const label = (node: ProfileNode) =>
    `${node.callFrame.functionName || '(anonymous)'} ${where(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;

  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const byPlace = new Map<string, number>();
  let total = 0;
  for (const sample of profile.samples) {
    const leaf = byId.get(sample)!;
    const name = leaf.callFrame.functionName;
    if (name === '(idle)' || name === '(program)') continue;
    total++;
    self.set(label(leaf), (self.get(label(leaf)) ?? 0) + 1);
    const place =
      name === '(garbage collector)' ? '(garbage collector)' : where(leaf.callFrame.url);
    byPlace.set(place, (byPlace.get(place) ?? 0) + 1);
    const seen = new Set<string>();
    for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) {
      const key = label(byId.get(id)!);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + 1);
    }
  }
  const top = (map: Map<string, number>, count: number, title: string) => {
    console.log(`\n${title}`);
    for (const [key, hits] of [...map].sort((a, b) => b[1] - a[1]).slice(0, count)) {
      console.log(`  ${((hits / total) * 100).toFixed(1).padStart(5)}%  ${key}`);
    }
  };
  console.log(`${total} busy samples`);
  top(byPlace, 25, 'self time by place');
  top(self, 30, 'self time by function');
  top(inclusive, 45, 'inclusive time by function');
}

async function main(): Promise<void> {
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  const hooked = workload === 'WEBHOOK';
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-profile-'));
  const tenant = `${BENCH_TENANT}-${process.pid}`;
  const env = {
    PATH: process.env.PATH,
    PORT: '0',
    PLANT_STORE_TOKENS: benchTokens(tenant),
    PLANT_STORE_DATA_DIR: join(dir, 'data'),
    PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true',
    PLANT_STORE_STORAGE: process.env.PLANT_STORE_STORAGE ?? 'memory',
    ...(process.env.REDIS_URL && { REDIS_URL: process.env.REDIS_URL }),
  };
  if (hooked) {
    const { port } = (await receive({ kind: 'receiver' })) as { port: number };
    const url = `http://127.0.0.1:${port}/hooks/profile`;
    const added = spawnSync(
      process.execPath,
      ['dist/cli.js', 'webhooks', 'add', '--tenant', tenant, '--url', url],
      { cwd: ROOT, env, encoding: 'utf8' },
    );
    const secret = /whsec_\S+/.exec(added.stdout)?.[0];
    if (secret === undefined) throw new Error(`webhooks add failed: ${added.stderr}`);
    await receive({ kind: 'expect', key: 'profile', secret });
  }
  // stdout (the JSON log, and --trace-gc's lines) to a file, read for the collections afterwards.
  const stdout = join(dir, 'stdout');
  const server =
    plants === undefined ? ['dist/cli.js', 'serve'] : ['--import', 'tsx', 'bench/servers/scale.ts'];
  const nodeArgs = ['--cpu-prof', `--cpu-prof-dir=${DIR}`, '--trace-gc', ...server];
  const [command, commandArgs] = nodeCommand(pinning?.server ?? '', nodeArgs);
  if (pinning) spawnSync('taskset', ['-a', '-pc', pinning.load, String(process.pid)]);
  const child = spawn(command, commandArgs, {
    cwd: ROOT,
    // The quota (1M by default) lifted, so that creates on a store of a million are measured too.
    env: {
      ...env,
      ...(plants !== undefined && {
        BENCH_PLANTS: String(plants),
        BENCH_STORAGE: JSON.stringify({ kind: 'memory', maxPlantsPerTenant: 0 }),
      }),
    },
    stdio: ['ignore', openSync(stdout, 'w'), 'pipe'],
  });
  let text = '';
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk));
  while (!LISTENING.test(text)) await new Promise((resolve) => setTimeout(resolve, 50));
  const [, host, port] = LISTENING.exec(text)!;
  const url = `http://${host}:${port}`;
  if (!hooked && plants === undefined) {
    await runLoad({ kind: 'seed', url, connections: 32, from: 1, count: 10_000 });
  }
  const gcFrom = statSync(stdout).size;
  const cpuFrom = cpuSeconds(child.pid);
  const loadFrom = performance.now();
  const job =
    workload === 'POST' || hooked
      ? ({
          kind: 'post',
          url,
          connections: 50,
          duration: seconds,
          ...(hooked && { track: 'profile' }),
        } as const)
      : ({
          kind: 'get',
          url,
          paths: ['/plants?limit=20'],
          connections: 50,
          duration: seconds,
        } as const);
  const result = await runLoad(job);
  const cpuUs = ((cpuSeconds(child.pid) - cpuFrom) * 1e6) / (result.ok + result.non2xx);
  const traced = readFileSync(stdout).subarray(gcFrom).toString('utf8');
  console.log(
    `${plants ?? 10_000} plants: ${cpuUs.toFixed(1)} CPU µs/req of the server; collections under load: ${gcCounts(traced)}; heap after: ${/-> ([\d.]+) \(/.exec([...traced.matchAll(/.*ms: (?:Scavenge|Mark-Compact).*/g)].at(-1)?.[0] ?? '')?.[1] ?? '?'} MB`,
  );
  console.log(
    `${workload}: ${result.rps.toFixed(0)} req/s (under the profiler), ${result.non2xx} non-2xx; token ${BENCH_TOKEN.slice(0, 5)}...`,
  );
  if (hooked) {
    for (let waited = 0; waited < 60_000; waited += 20) {
      const got = (await receive({ kind: 'deliveries', key: 'profile' })) as Deliveries;
      if (got.delivered >= result.ok) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const got = (await receive({ kind: 'deliveries', key: 'profile' })) as Deliveries;
    console.log(
      `delivered ${got.delivered}/${result.ok}, lag p50 ${got.p50.toFixed(0)} ms, p99 ${got.p99.toFixed(0)} ms`,
    );
  }
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  const loadMs = performance.now() - loadFrom;
  const file = readdirSync(DIR).find((name) => name.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error('no profile written');
  rmSync(dir, { recursive: true, force: true });
  report(lastSamples(JSON.parse(readFileSync(`${DIR}/${file}`, 'utf8')) as Profile, loadMs));
  console.log(`\nprofile: bench/results/profiles/${file}`);
}

await main();
