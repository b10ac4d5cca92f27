import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_TOKEN, benchTokens, LISTENING, plantBody } from './common.js';

// `node --import tsx bench/instructions.ts GET|POST [requests] [dist ...] [--rounds N]`:
// instructions the service executes per request, counted by valgrind's callgrind (every thread),
// for A/B of changes too small for the CPU-time rounds to resolve. Each build (a dist/ directory;
// default ./dist) is started under callgrind, seeded with 100 plants, warmed up with `requests`
// requests (so that V8 has optimised the hot path), then counted (callgrind's counters zeroed,
// then dumped) over `requests` more, 10 in flight on keep-alive connections. Builds run one
// after the other, `--rounds N` times each, interleaved; the medians are printed. The counts
// include timers' work (pino's flush, the server's checks), which grows per request when
// valgrind runs slower (beside other valgrind runs): compare builds counted in one invocation,
// not counts taken at different times. `--storage lmdb` runs the service on the embedded store
// (a fresh directory per build; default memory).

const { values, positionals: plain } = parseArgs({
  allowPositionals: true,
  options: {
    rounds: { type: 'string', default: '1' },
    storage: { type: 'string', default: 'memory' },
  },
});
const rounds = Number(values.rounds);
const storage = values.storage;
const workload = (plain[0] ?? 'GET').toUpperCase() as 'GET' | 'POST';
const count = Number(plain[1] ?? 2000);
const builds = plain.length > 2 ? plain.slice(2) : ['dist'];
const IN_FLIGHT = 10;

let nextId = 1_000_000;
async function send(url: string, agent: Agent, method: 'GET' | 'POST'): Promise<void> {
  const body = method === 'POST' ? plantBody(nextId++) : undefined;
  const status = await new Promise<number>((done, fail) => {
    const req = request(
      `${url}${method === 'GET' ? '/plants?limit=20' : '/plants'}`,
      {
        method,
        agent,
        headers: {
          authorization: `Bearer ${BENCH_TOKEN}`,
          ...(body && { 'content-type': 'application/json' }),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => done(res.statusCode ?? 0));
      },
    );
    req.on('error', fail);
    req.end(body);
  });
  if (status !== 200) throw new Error(`${method} answered ${status}`);
}

async function drive(url: string, agent: Agent, method: 'GET' | 'POST', n: number) {
  let left = n;
  const worker = async () => {
    while (left-- > 0) await send(url, agent, method);
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

async function measure(dist: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-callgrind-'));
  const out = join(dir, 'callgrind.out');
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      `--callgrind-out-file=${out}`,
      process.execPath,
      // No background compilation or GC threads: V8 tiers up at the same request in every run.
      '--single-threaded',
      join(resolve(dist), 'cli.js'),
      'serve',
    ],
    {
      env: {
        PATH: process.env.PATH,
        PORT: '0',
        HOST: '127.0.0.1',
        NODE_ENV: 'production',
        PLANT_STORE_STORAGE: storage,
        PLANT_STORE_DATA_DIR: join(dir, 'data'),
        PLANT_STORE_TOKENS: benchTokens(),
        // commit-only: a durable create under valgrind on a busy machine can pass the stores' 2 s deadline.
        ...(process.env.PLANT_STORE_DURABILITY && {
          PLANT_STORE_DURABILITY: process.env.PLANT_STORE_DURABILITY,
        }),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let text = '';
  child.stderr.on('data', (chunk: Buffer) => (text += chunk));
  try {
    while (!LISTENING.test(text)) {
      if (child.exitCode !== null) throw new Error(`the service did not start:\n${text}`);
      await new Promise((done) => setTimeout(done, 100));
    }
    const [, host, port] = LISTENING.exec(text)!;
    const url = `http://${host}:${port}`;
    const warm = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
    await drive(url, warm, 'POST', 100);
    await drive(url, warm, workload, count);
    warm.destroy();
    // Fresh connections for the counted requests: callgrind_control can take longer than the
    // service keeps an idle connection open.
    const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
    const control = (...flags: string[]) =>
      // valgrind names its control pipes after $HOST, which the service's environment sets.
      spawnSync('callgrind_control', [...flags, String(child.pid)], {
        encoding: 'utf8',
        env: { ...process.env, HOST: '127.0.0.1' },
      });
    control('--zero');
    await drive(url, agent, workload, count);
    const dumped = control('--dump');
    if (process.env.DEBUG) console.error(dumped.stdout, dumped.stderr, readdirSync(dir));
    agent.destroy();
    const dumps = readdirSync(dir).filter((name) => name.startsWith('callgrind.out'));
    let instructions = 0;
    for (const name of dumps) {
      const total = /^(?:summary|totals): (\d+)/m.exec(readFileSync(join(dir, name), 'utf8'));
      instructions = Math.max(instructions, Number(total?.[1] ?? 0));
    }
    return instructions / count;
  } finally {
    // SIGTERM: the service shuts down and valgrind removes its control pipes (SIGKILL leaves them).
    if (child.exitCode === null) {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

const results = new Map<string, number[]>(builds.map((build) => [build, []]));
for (let round = 0; round < rounds; round++) {
  for (const build of builds) {
    const perRequest = await measure(build);
    results.get(build)!.push(perRequest);
    console.log(`${build} ${workload}: ${(perRequest / 1000).toFixed(1)} k instructions/request`);
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
for (const [build, values] of results) {
  console.log(
    `instructions: ${build} ${workload} ${(median(values) / 1000).toFixed(1)} k/request (median of ${values.length}, ${count} requests each)`,
  );
}
