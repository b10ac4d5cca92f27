// `serve --workers N`: node:cluster hands each connection to one worker, so GET /metrics answers
// the instance's totals only if the worker that takes the scrape gathers every worker's series.
// The primary gathers them over IPC (each worker's registry as JSON, merged with prom-client's
// AggregatorRegistry.aggregate) and answers the worker that asked. Not prom-client's
// clusterMetrics(): it keeps a request until every worker answers, so a hung worker made every
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
export const GATHER_MS = 3000;
// A worker's own bound, past the primary's, for a primary that never answers.
const ASK_MS = GATHER_MS + 1000;

type Series = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

interface Answer {
  type: typeof ANSWER;
  id: number;
  text?: string;
  error?: string;
}

interface WorkerSeries {
  type: typeof SERIES;
  round: number;
  series?: Series;
  error?: string;
}

/** GET /metrics under `serve --workers` when the instance's series could not all be gathered. */
export class InstanceMetricsUnavailable extends Error {}

const isMessage = (message: unknown, type: string): boolean =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;

/** One gathering, which every scrape asking meanwhile shares. */
interface Gathering {
  round: number;
  waiting: Map<number, Worker>;
  answers: Series[];
  promise: Promise<string>;
  settle: (error?: Error) => void;
}

export interface GatherOptions {
  /** The workers to ask: those serving (a starting worker has nothing to say yet). */
  workers: () => Iterable<Worker>;
  logger: Logger;
  /** The primary's own series, added to the workers' (its process metrics). */
  own?: Registry;
  waitMs?: number;
}

/** The primary's process metrics, labelled `worker="primary"`, so that its heap can be watched. */
export function primaryMetrics(prefix = DEFAULT_METRICS_PREFIX): Registry {
  const own = new Registry();
  collectDefaultMetrics({ register: own, prefix, labels: { worker: 'primary' } });
  return own;
}

/**
 * In the primary: answers each worker's request with every serving worker's metrics, aggregated.
 * A gathering ends when every worker has answered or left, or after `waitMs`: then it is dropped
 * (late answers are ignored), its scrapes fail, and each silent worker is logged once until it
 * answers again. Nothing is kept between gatherings.
 */
export function serveInstanceMetrics({
  workers,
  logger,
  own,
  waitMs = GATHER_MS,
}: GatherOptions): void {
  let rounds = 0;
  let current: Gathering | undefined;
  const silent = new Set<number>();

  const aggregate = async (answers: Series[]): Promise<string> => {
    if (own !== undefined) answers.push(await own.getMetricsAsJSON());
    return AggregatorRegistry.aggregate(answers).metrics();
  };

  const gather = (): Promise<string> => {
    if (current !== undefined) return current.promise;
    const round = ++rounds;
    const waiting = new Map<number, Worker>();
    for (const worker of workers()) {
      if (!worker.isConnected()) continue;
      waiting.set(worker.id, worker);
      worker.send({ type: GATHER, round });
    }
    let settle!: (error?: Error) => void;
    const promise = new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        const late = [...waiting.values()].filter((worker) => !silent.has(worker.id));
        for (const worker of late) silent.add(worker.id);
        if (late.length > 0) {
          logger.warn(
            {
              workers: late.map((worker) => worker.id),
              pids: late.map((worker) => worker.process.pid),
              waitMs,
            },
            'a worker did not send its metrics in time; GET /metrics answers 503 until it does',
          );
        }
        settle(new Error(`${waiting.size} worker(s) did not answer within ${waitMs} ms`));
      }, waitMs);
      settle = (error) => {
        clearTimeout(timer);
        if (current === gathering) current = undefined;
        if (error !== undefined) reject(error);
        else aggregate(gathering.answers).then(resolve, reject);
      };
    });
    const gathering: Gathering = { round, waiting, answers: [], promise, settle };
    current = gathering;
    if (waiting.size === 0) settle();
    return promise;
  };

  cluster.on('message', (worker, message: unknown) => {
    if (isMessage(message, SERIES)) {
      const { round, series, error } = message as WorkerSeries;
      const gathering = current;
      if (gathering?.round !== round || !gathering.waiting.delete(worker.id)) return;
      silent.delete(worker.id);
      if (series === undefined) return gathering.settle(new Error(error));
      gathering.answers.push(series);
      if (gathering.waiting.size === 0) gathering.settle();
      return;
    }
    if (!isMessage(message, ASK)) return;
    const { id } = message as { id: number };
    gather().then(
      (text) => worker.isConnected() && worker.send({ type: ANSWER, id, text } satisfies Answer),
      (error: unknown) =>
        worker.isConnected() &&
        worker.send({ type: ANSWER, id, error: (error as Error).message } satisfies Answer),
    );
  });
  // A worker that leaves is not waited for; its replacement is asked from the next gathering on.
  cluster.on('exit', (worker) => {
    silent.delete(worker.id);
    if (current?.waiting.delete(worker.id) && current.waiting.size === 0) current.settle();
  });
}

/**
 * In a worker: lends `registry` to the primary's gatherings, and returns how to ask the primary
 * for the instance's metrics (rejects with InstanceMetricsUnavailable when they cannot be had).
 */
export function instanceMetrics(registry: Registry): () => Promise<string> {
  const pending = new Map<number, (answer: Answer) => void>();
  let next = 0;
  process.on('message', (message: unknown) => {
    if (isMessage(message, ANSWER)) pending.get((message as Answer).id)?.(message as Answer);
    if (!isMessage(message, GATHER)) return;
    const { round } = message as { round: number };
    registry.getMetricsAsJSON().then(
      (series) => process.send?.({ type: SERIES, round, series } satisfies WorkerSeries),
      (error: unknown) =>
        process.send?.({ type: SERIES, round, error: String(error) } satisfies WorkerSeries),
    );
  });
  return () =>
    new Promise((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => settle({ type: ANSWER, id, error: 'no answer' }), ASK_MS);
      const settle = (answer: Answer): void => {
        clearTimeout(timer);
        pending.delete(id);
        if (answer.text !== undefined) resolve(answer.text);
        else
          reject(
            new InstanceMetricsUnavailable(
              `the instance's metrics could not be gathered: ${answer.error}`,
            ),
          );
      };
      pending.set(id, settle);
      process.send!({ type: ASK, id });
    });
}
