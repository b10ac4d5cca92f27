import type { EventEmitter } from 'node:events';
import autocannon from 'autocannon';
import { BENCH_TOKEN, plantBody } from './common.js';

// The load generator, in its own process (pinned to its own core by bench/run.ts): it takes jobs
// over IPC and answers each with the figures autocannon measured.

export type LoadJob =
  | { kind: 'get'; url: string; paths: readonly string[]; connections: number; duration: number }
  | { kind: 'post'; url: string; connections: number; duration: number }
  | { kind: 'seed'; url: string; connections: number; from: number; count: number };

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

const AUTH = { authorization: `Bearer ${BENCH_TOKEN}` };
const JSON_HEADERS = { ...AUTH, 'content-type': 'application/json' };

// Ids of POSTs made under load: unique over the whole run, far above the seeded ones.
let nextId = 1_000_000_000;

function options(job: LoadJob): autocannon.Options {
  switch (job.kind) {
    case 'get':
      return {
        url: job.url,
        connections: job.connections,
        duration: job.duration,
        requests: job.paths.map((path) => ({ method: 'GET', path, headers: AUTH })),
      };
    case 'post':
      return {
        url: job.url,
        connections: job.connections,
        duration: job.duration,
        requests: [
          {
            method: 'POST',
            path: '/plants',
            headers: JSON_HEADERS,
            setupRequest: (request) => ({ ...request, body: plantBody(nextId++) }),
          },
        ],
      };
    case 'seed': {
      let id = job.from;
      return {
        url: job.url,
        connections: job.connections,
        amount: job.count,
        requests: [
          {
            method: 'POST',
            path: '/plants',
            headers: JSON_HEADERS,
            setupRequest: (request) => ({ ...request, body: plantBody(id++) }),
          },
        ],
      };
    }
  }
}

/** The value below which `fraction` of the sorted values lie. */
const percentile = (sorted: Float64Array, fraction: number): number =>
  sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;

export async function runLoad(job: LoadJob): Promise<LoadResult> {
  // autocannon acts on the end of a run at its next sample tick: short runs need short ticks.
  const sampleInt = job.kind === 'seed' || job.duration < 2 ? 50 : 1000;
  // Without a callback autocannon answers its tracker, an EventEmitter that is also a promise.
  const instance = autocannon({ ...options(job), sampleInt }) as unknown as EventEmitter &
    PromiseLike<autocannon.Result>;
  // autocannon's own histogram has whole milliseconds; keep every 2xx latency to report finer.
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  instance.on('response', (_client: unknown, status: number, _bytes: number, time: number) => {
    if (status < 200 || status > 299) return;
    if (count === latencies.length) {
      const grown = new Float64Array(latencies.length * 2);
      grown.set(latencies);
      latencies = grown;
    }
    latencies[count++] = time;
  });
  const result = await instance;
  const sorted = latencies.subarray(0, count).sort();
  return {
    requests: result.requests.total,
    rps: result.requests.total / result.duration,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

if (process.send !== undefined) {
  process.on('message', (job: LoadJob) => {
    runLoad(job).then(
      (result) => process.send!({ result }),
      (error: unknown) => process.send!({ error: String(error) }),
    );
  });
  process.send({ ready: true });
}
