// `serve --workers N`: node:cluster hands each connection to one worker, so GET /metrics answers
// the instance's totals only if the worker that takes the scrape gathers every worker's series.
// prom-client's AggregatorRegistry does the gathering in the primary (clusterMetrics() asks each
// worker over IPC for its registry); a worker asks the primary for that text here.
import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

const ASK = 'plant-store:instance-metrics?';
const ANSWER = 'plant-store:instance-metrics';
// Past prom-client's own 5 s bound on a worker's answer, so that its error is the one reported.
const WAIT_MS = 6000;

interface Answer {
  type: typeof ANSWER;
  id: number;
  text?: string;
  error?: string;
}

const isMessage = (message: unknown, type: string): boolean =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;

/** In the primary: answers each worker's request with every worker's metrics, aggregated. */
export function serveInstanceMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: unknown) => {
    if (!isMessage(message, ASK)) return;
    const { id } = message as { id: number };
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: ANSWER, id, text } satisfies Answer),
      (error: unknown) =>
        worker.send({ type: ANSWER, id, error: (error as Error).message } satisfies Answer),
    );
  });
}

/**
 * In a worker: lends `registry` to the primary's aggregation, and returns how to ask the primary
 * for the instance's metrics (rejects when it does not answer in time).
 */
export function instanceMetrics(registry: Registry): () => Promise<string> {
  AggregatorRegistry.setRegistries([registry]);
  // Constructed for its listener, which answers the primary's requests for this worker's series.
  new AggregatorRegistry();
  const pending = new Map<number, (answer: Answer) => void>();
  let next = 0;
  process.on('message', (message: unknown) => {
    if (isMessage(message, ANSWER)) pending.get((message as Answer).id)?.(message as Answer);
  });
  return () =>
    new Promise((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => settle({ type: ANSWER, id, error: 'no answer' }), WAIT_MS);
      const settle = (answer: Answer): void => {
        clearTimeout(timer);
        pending.delete(id);
        if (answer.text !== undefined) resolve(answer.text);
        else reject(new Error(`the instance's metrics could not be gathered: ${answer.error}`));
      };
      pending.set(id, settle);
      process.send!({ type: ASK, id });
    });
}
