import type { EventEmitter } from 'node:events';
import { Agent, createServer, request as httpRequest } from 'node:http';
import autocannon from 'autocannon';
import { Webhook } from 'standardwebhooks';
import { BENCH_TOKEN, plantBody } from './common.js';

// The load generator, in its own process (pinned to its own core by bench/run.ts): it takes jobs
// over IPC and answers each with the figures autocannon measured.

export type LoadJob = (
  | { kind: 'get'; url: string; paths: readonly string[]; connections: number; duration: number }
  | {
      kind: 'post';
      url: string;
      connections: number;
      duration: number;
      /** Webhook deliveries of these creates are expected at the receiver under this key. */
      track?: string;
    }
  | { kind: 'seed'; url: string; connections: number; from: number; count: number }
) & {
  /** Runs with the same tag add up: their latencies are kept together until a `collect`. */
  tag?: string;
};

/**
 * Requests at a fixed rate, evenly spaced (open loop) over at most `connections` keep-alive
 * connections: each request's latency runs from the moment it was due, so a server that falls
 * behind shows it (autocannon's own rate limit sends each second's quota in a burst, then waits).
 */
export type PacedJob = {
  kind: 'paced';
  method: 'GET' | 'POST';
  url: string;
  path: string;
  connections: number;
  duration: number;
  rate: number;
  tag?: string;
};

/** Percentiles over every run with the tag since the last collect; forgets them. */
export type CollectJob = { kind: 'collect'; tag: string };

/**
 * The webhook receiver of bench/webhooks.ts, in this process (so the lag from sending a create to
 * receiving its event is read on one clock): `receiver` starts it and answers its port; `expect`
 * tells it a key's signing secret (deliveries arrive at `/hooks/<key>`); `deliveries` answers how
 * many creates tracked under the key were sent and how many of them arrived, and with
 * `collect: true` the lag percentiles since the last collect, forgetting them.
 */
export type ReceiverJob =
  | { kind: 'receiver' }
  | { kind: 'expect'; key: string; secret: string }
  | { kind: 'deliveries'; key: string; collect?: boolean };
export interface Deliveries {
  sent: number;
  delivered: number;
  duplicates: number;
  /** Deliveries whose signature was checked (one in VERIFY_EVERY) and found wrong. */
  forged: number;
  p50: number;
  p99: number;
}

export interface LoadResult {
  /** 2xx responses that arrived within the nominal duration, and that duration in seconds. */
  requests: number;
  seconds: number;
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
    case 'get': {
      if (job.paths.length <= 2) {
        return {
          url: job.url,
          connections: job.connections,
          duration: job.duration,
          requests: job.paths.map((path) => ({ method: 'GET', path, headers: AUTH })),
        };
      }
      // Many paths (--cold-pages): one request whose path goes round them. autocannon answered a
      // few requests a second with a sequence of 2,000 (each connection runs it through once).
      let next = 0;
      const { paths } = job;
      return {
        url: job.url,
        connections: job.connections,
        duration: job.duration,
        requests: [
          {
            method: 'GET',
            headers: AUTH,
            setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length]! }),
          },
        ],
      };
    }
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
            setupRequest: (request) => {
              const id = nextId++;
              if (job.track !== undefined) expectDelivery(job.track, id);
              return { ...request, body: plantBody(id) };
            },
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

class Latencies {
  values = new Float64Array(1 << 16);
  count = 0;
  add(value: number): void {
    if (this.count === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.count++] = value;
  }
  percentiles(): { p50: number; p99: number } {
    const sorted = this.values.subarray(0, this.count).sort();
    return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
  }
}
const tagged = new Map<string, Latencies>();

export async function runLoad(job: LoadJob): Promise<LoadResult> {
  // autocannon notices the end of a run at its next sample tick; short ticks keep runs exact.
  const started = performance.now();
  const windowMs = job.kind === 'seed' ? Infinity : job.duration * 1000;
  // Without a callback autocannon answers its tracker, an EventEmitter that is also a promise.
  const instance = autocannon({ ...options(job), sampleInt: 50 }) as unknown as EventEmitter &
    PromiseLike<autocannon.Result>;
  // autocannon's own histogram has whole milliseconds; keep every 2xx latency to report finer.
  const latencies = new Latencies();
  let inWindow = 0;
  instance.on('response', (_client: unknown, status: number, _bytes: number, time: number) => {
    if (status < 200 || status > 299) return;
    if (performance.now() - started <= windowMs) inWindow++;
    latencies.add(time);
  });
  const result = await instance;
  const seconds = job.kind === 'seed' ? result.duration : job.duration;
  if (job.tag !== undefined) {
    const kept = tagged.get(job.tag) ?? new Latencies();
    for (let i = 0; i < latencies.count; i++) kept.add(latencies.values[i]!);
    tagged.set(job.tag, kept);
  }
  return {
    requests: inWindow,
    seconds,
    rps: inWindow / seconds,
    ...latencies.percentiles(),
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

const agents = new Map<string, Agent>();

export function runPaced(job: PacedJob): Promise<LoadResult> {
  // One agent per server and connection count: its sockets stay open from slice to slice.
  const key = `${job.url} ${job.connections}`;
  let agent = agents.get(key);
  if (agent === undefined) {
    agent = new Agent({ keepAlive: true, maxSockets: job.connections });
    agents.set(key, agent);
  }
  const { hostname, port } = new URL(job.url);
  const latencies = new Latencies();
  const total = Math.round(job.rate * job.duration);
  const interval = 1000 / job.rate;
  const counts = { ok: 0, non2xx: 0, errors: 0, inWindow: 0 };
  let sent = 0;
  let done = 0;
  const started = performance.now();
  return new Promise((resolve) => {
    const finish = () => {
      if (done < total || sent < total) return;
      if (job.tag !== undefined) {
        const kept = tagged.get(job.tag) ?? new Latencies();
        for (let i = 0; i < latencies.count; i++) kept.add(latencies.values[i]!);
        tagged.set(job.tag, kept);
      }
      resolve({
        requests: counts.inWindow,
        seconds: job.duration,
        rps: counts.inWindow / job.duration,
        ...latencies.percentiles(),
        ok: counts.ok,
        non2xx: counts.non2xx,
        errors: counts.errors,
        timeouts: 0,
      });
    };
    const send = (due: number) => {
      const id = nextId++;
      const body = job.method === 'POST' ? plantBody(id) : undefined;
      const request = httpRequest(
        {
          agent,
          hostname,
          port,
          method: job.method,
          path: job.path,
          headers: body === undefined ? AUTH : { ...JSON_HEADERS, 'content-length': body.length },
        },
        (response) => {
          response.resume();
          response.on('end', () => {
            const now = performance.now();
            const status = response.statusCode ?? 0;
            if (status >= 200 && status <= 299) {
              counts.ok++;
              latencies.add(now - due);
              if (now - started <= job.duration * 1000) counts.inWindow++;
            } else counts.non2xx++;
            done++;
            finish();
          });
        },
      );
      request.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive socket the server closed while idle (between this server's slices): sent
        // again, from the same due time, as node:http's docs advise (request.reusedSocket).
        if (request.reusedSocket && error.code === 'ECONNRESET') return send(due);
        counts.errors++;
        done++;
        finish();
      });
      request.end(body);
    };
    const tick = () => {
      const due = Math.min(total, Math.floor((performance.now() - started) / interval) + 1);
      while (sent < due) send(started + sent++ * interval);
      if (sent < total) setTimeout(tick, 1);
      else finish();
    };
    tick();
  });
}

export function collect(job: CollectJob): { p50: number; p99: number } {
  const kept = tagged.get(job.tag) ?? new Latencies();
  tagged.delete(job.tag);
  return kept.percentiles();
}

// ---- the webhook receiver ----

// Verifying a signature costs this core CPU that autocannon needs: one delivery in this many is
// verified with the standardwebhooks package, enough to catch a wrong signature at once.
const VERIFY_EVERY = 50;
interface Tracked {
  secret?: Webhook;
  sent: number;
  delivered: number;
  duplicates: number;
  forged: number;
  lags: Latencies;
}
const tracked = new Map<string, Tracked>();
const sentAt = new Map<number, number>();
const trackedAs = (key: string): Tracked => {
  let found = tracked.get(key);
  if (found === undefined) {
    found = { sent: 0, delivered: 0, duplicates: 0, forged: 0, lags: new Latencies() };
    tracked.set(key, found);
  }
  return found;
};
function expectDelivery(key: string, id: number): void {
  trackedAs(key).sent++;
  sentAt.set(id, performance.now());
}
let receiverPort: Promise<number> | undefined;
function startReceiver(): Promise<number> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const entry = trackedAs(req.url?.slice('/hooks/'.length) ?? '');
      const body = Buffer.concat(chunks).toString();
      const id = Number(/^\{"id":(\d+)/.exec(body)?.[1]);
      const sent = sentAt.get(id);
      if (sent === undefined) entry.duplicates++;
      else {
        sentAt.delete(id);
        entry.delivered++;
        entry.lags.add(performance.now() - sent);
      }
      if (entry.secret !== undefined && (entry.delivered + entry.duplicates) % VERIFY_EVERY === 1) {
        try {
          entry.secret.verify(body, req.headers as Record<string, string>);
        } catch {
          entry.forged++;
        }
      }
      res.writeHead(204).end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
}

export async function receive(job: ReceiverJob): Promise<object> {
  switch (job.kind) {
    case 'receiver':
      return { port: await (receiverPort ??= startReceiver()) };
    case 'expect':
      trackedAs(job.key).secret = new Webhook(job.secret);
      return { key: job.key };
    case 'deliveries': {
      const { sent, delivered, duplicates, forged, lags } = trackedAs(job.key);
      const figures = { sent, delivered, duplicates, forged, ...lags.percentiles() };
      if (job.collect) tracked.get(job.key)!.lags = new Latencies();
      return figures satisfies Deliveries;
    }
  }
}

if (process.send !== undefined) {
  const answer = (message: object) => {
    if (process.connected) process.send!(message);
  };
  process.on('message', (job: LoadJob | CollectJob | ReceiverJob | PacedJob) => {
    (job.kind === 'collect'
      ? Promise.resolve(collect(job))
      : job.kind === 'paced'
        ? runPaced(job)
        : job.kind === 'receiver' || job.kind === 'expect' || job.kind === 'deliveries'
          ? receive(job)
          : runLoad(job)
    ).then(
      (result) => answer({ result }),
      (error: unknown) => answer({ error: String(error) }),
    );
  });
  // The bench is gone: so is the reason to load anything.
  process.on('disconnect', () => process.exit(0));
  answer({ ready: true });
}
