// `serve --workers N`: the worker taking a scrape asks the primary, which gathers every worker's
// registry over IPC and merges them (AggregatorRegistry.aggregate). Not prom-client's
// clusterMetrics(): it kept a request until every worker answered, so a hung worker made every
// scrape a leak in the primary (issue 34).
import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, collectDefaultMetrics, Registry } from 'prom-client';
import type { Logger } from '../../ports/logger.js';
import { DEFAULT_METRICS_PREFIX } from './service-metrics.js';

const ASK = 'plant-store:instance-metrics?';
const ANSWER = 'plant-store:instance-metrics';
const GATHER = 'plant-store:worker-series?';
const SERIES = 'plant-store:worker-series';
/** How long the primary waits for every worker's series; then the scrapes waiting answer 503. */
const GATHER_MS = 3000;
// A worker's own bound, past the primary's, for a primary that never answers.
const ASK_MS = GATHER_MS + 1000;

type Series = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;
/** Over IPC: an ask or answer (`id`), a gathering's request or a worker's series (`round`). */
interface Message {
  type?: unknown;
  id?: number;
  round?: number;
  text?: string;
  series?: Series;
  error?: string;
}

/** GET /metrics under `serve --workers` when the instance's series could not all be gathered. */
export class InstanceMetricsUnavailable extends Error {}

/** The primary's process metrics, labelled `worker="primary"`, so that its heap can be watched. */
export function primaryMetrics(prefix = DEFAULT_METRICS_PREFIX): Registry {
  const own = new Registry();
  collectDefaultMetrics({ register: own, prefix, labels: { worker: 'primary' } });
  return own;
}

/**
 * In the primary: answers each worker's request with every serving worker's metrics (`workers`:
 * a starting worker has nothing to say yet) and `own`, aggregated. One gathering at a time, which
 * every scrape asking meanwhile shares; it ends when every worker has answered or left, or after
 * GATHER_MS: then it is dropped (late answers are ignored), its scrapes fail, and each silent
 * worker is logged once until it answers again. Nothing is kept between gatherings.
 */
export function serveInstanceMetrics({
  workers,
  logger,
  own,
}: {
  workers: () => Iterable<Worker>;
  logger: Logger;
  own?: Registry;
}): void {
  let rounds = 0;
  let current:
    { waiting: Map<number, Worker>; answers: Series[]; end(e?: Error): void } | undefined;
  let done: Promise<string> | undefined;
  const silent = new Set<number>();

  const gather = (): Promise<string> => {
    if (done !== undefined) return done;
    const round = ++rounds;
    const waiting = new Map<number, Worker>();
    for (const worker of workers()) {
      if (!worker.isConnected()) continue;
      waiting.set(worker.id, worker);
      worker.send({ type: GATHER, round });
    }
    const answers: Series[] = [];
    const timer = setTimeout(() => {
      const late = [...waiting.values()].filter((worker) => !silent.has(worker.id));
      for (const worker of late) silent.add(worker.id);
      if (late.length > 0) {
        const pids = late.map((w) => w.process.pid);
        logger.warn(
          { workers: late.map((w) => w.id), pids, waitMs: GATHER_MS },
          'a worker did not send its metrics in time; GET /metrics answers 503 until it does',
        );
      }
      end(new Error(`${waiting.size} worker(s) did not answer within ${GATHER_MS} ms`));
    }, GATHER_MS);
    let end!: (error?: Error) => void;
    const gathered = (done = new Promise<string>((resolve, reject) => {
      // Called once, while this gathering is the current one.
      end = (error) => {
        clearTimeout(timer);
        current = done = undefined;
        if (error !== undefined) return reject(error);
        Promise.all(own === undefined ? [] : [own.getMetricsAsJSON()])
          .then((mine) => AggregatorRegistry.aggregate([...answers, ...mine]).metrics())
          .then(resolve, reject);
      };
    }));
    current = { waiting, answers, end };
    if (waiting.size === 0) end();
    return gathered;
  };

  cluster.on('message', (worker, message: Message) => {
    if (message?.type === SERIES) {
      const gathering = current;
      if (gathering === undefined || message.round !== rounds) return;
      if (!gathering.waiting.delete(worker.id)) return;
      silent.delete(worker.id);
      if (message.series === undefined) return gathering.end(new Error(message.error));
      gathering.answers.push(message.series);
      if (gathering.waiting.size === 0) gathering.end();
    } else if (message?.type === ASK) {
      const answer = (reply: Message) =>
        worker.isConnected() && worker.send({ type: ANSWER, id: message.id, ...reply });
      gather().then(
        (text) => answer({ text }),
        (error: unknown) => answer({ error: (error as Error).message }),
      );
    }
  });
  // A worker that leaves is not waited for; its replacement is asked from the next gathering on.
  cluster.on('exit', (worker) => {
    silent.delete(worker.id);
    if (current?.waiting.delete(worker.id) && current.waiting.size === 0) current.end();
  });
}

/**
 * In a worker: lends `registry` to the primary's gatherings, and returns how to ask the primary
 * for the instance's metrics (rejects with InstanceMetricsUnavailable when they cannot be had).
 */
export function instanceMetrics(registry: Registry): () => Promise<string> {
  const pending = new Map<number, (answer: Message) => void>();
  let next = 0;
  process.on('message', (message: Message) => {
    if (message?.type === ANSWER) pending.get(message.id!)?.(message);
    if (message?.type !== GATHER) return;
    const { round } = message;
    registry.getMetricsAsJSON().then(
      (series) => process.send?.({ type: SERIES, round, series }),
      (error: unknown) => process.send?.({ type: SERIES, round, error: String(error) }),
    );
  });
  return () =>
    new Promise((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => settle({ error: 'no answer' }), ASK_MS);
      const settle = ({ text, error }: Message): void => {
        clearTimeout(timer);
        pending.delete(id);
        if (text !== undefined) return resolve(text);
        const problem = `the instance's metrics could not be gathered: ${error}`;
        reject(new InstanceMetricsUnavailable(problem));
      };
      pending.set(id, settle);
      process.send!({ type: ASK, id });
    });
}
