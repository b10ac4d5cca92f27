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

export async function runLoad(job: LoadJob): Promise<LoadResult> {
  // autocannon acts on the end of a run at its next sample tick: short runs need short ticks.
  const sampleInt = job.kind === 'seed' || job.duration < 2 ? 50 : 1000;
  const result = await autocannon({ ...options(job), sampleInt });
  return {
    requests: result.requests.total,
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
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
