import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { withinDeadline } from '../deadline.js';
import type { RedisTarget } from './redis-url.js';

export type RedisClient = Redis | Cluster;

// Every wait is bounded so that a request fails fast (503) instead of hanging on a lost server: no
// offline queue (a command would run after its caller was told it failed), no resend, timeouts for
// a silent server; reconnection never gives up. Auto-pipelining sends one turn's commands as one
// write (bench/README.md); a pipelined command's timeout starts only when written, so each store
// operation is capped by redisCall as well.
const BOUNDED = {
  enableAutoPipelining: true,
  connectTimeout: 1000,
  commandTimeout: 1500,
  socketTimeout: 2000,
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
  enableOfflineQueue: false,
} satisfies RedisOptions;

const reconnectDelay = (attempt: number): number => Math.min(50 * attempt, 1000);

/** Builds the client for the target; it connects in the background and reconnects by itself. */
export function createRedisClient(target: RedisTarget): RedisClient {
  const { cluster, nodes, db, tls, ...credentials } = target;
  const auth = { ...credentials, ...(tls && { tls: {} }) };
  if (!cluster) {
    return new Redis({ ...BOUNDED, ...auth, ...nodes[0]!, db, retryStrategy: reconnectDelay });
  }
  const { enableOfflineQueue, enableAutoPipelining, ...perNode } = BOUNDED;
  return new Cluster(nodes, {
    enableOfflineQueue,
    enableAutoPipelining,
    clusterRetryStrategy: reconnectDelay,
    // Nodes reconnect by themselves too, so that a restarted master is used again at once.
    clusterNodeRetryStrategy: reconnectDelay,
    slotsRefreshTimeout: 1000,
    redisOptions: { ...perNode, ...auth },
  });
}

const UNAVAILABLE_NAMES = /^(?:MaxRetriesPerRequestError|AbortError|ClusterAllFailedError)$/;
const UNAVAILABLE_CODES =
  /^(?:ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN)$/;
// ioredis's messages for a lost or unready connection, and Redis's "not now" replies.
const UNAVAILABLE_MESSAGE =
  /^(?:Command timed out|Connection is closed|Stream isn't writeable|Cluster isn't ready|Cluster is (?:disconnected|disconnecting|ended)|None of startup nodes|Too many Cluster redirections|Socket timeout|connect ETIMEDOUT|Failed to refresh slots cache|Node is disconnected|No master node|LOADING|BUSY |TRYAGAIN|CLUSTERDOWN|MASTERDOWN|READONLY)/;

/** Whether an error from ioredis means that Redis cannot be reached now (as opposed to a bug). */
export function isUnavailableError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code } = error as { code?: unknown };
  return (
    UNAVAILABLE_NAMES.test(error.name) ||
    (typeof code === 'string' && UNAVAILABLE_CODES.test(code)) ||
    UNAVAILABLE_MESSAGE.test(error.message)
  );
}

// "Up, but taking no writes": OOM under noeviction, MISCONF (a failed snapshot), NOREPLICAS.
const REFUSAL_MESSAGE = /^(?:OOM|MISCONF|NOREPLICAS) /;

/** Whether an error from ioredis means that Redis refuses writes until an operator acts. */
export function isRefusalError(error: unknown): boolean {
  return error instanceof Error && REFUSAL_MESSAGE.test(error.message);
}

/**
 * One command under the store deadline (a Cluster may also retry, redirect and refresh slots
 * first): unreachable becomes storage-unavailable, with `refusals` no-writes storage-refuses-writes.
 */
export const redisCall = <T>(command: Promise<T>, refusals = false): Promise<T> =>
  withinDeadline(command, isUnavailableError, refusals ? isRefusalError : undefined);

/**
 * Resolves once the client is ready. Rejects with the last connection error (else `earlier`, else
 * "no answer") after `ms`, at once with one that waiting cannot heal (a refused password, say).
 */
export function untilReady(client: RedisClient, ms: number, earlier?: Error): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    let lastError = earlier ?? new Error('no answer');
    const settle = (outcome: () => void): void => {
      clearTimeout(timer);
      client.off('error', onError);
      client.off('ready', onReady);
      outcome();
    };
    const onError = (error: Error): void => {
      lastError = error;
      if (!isUnavailableError(error)) settle(() => reject(error));
    };
    const onReady = (): void => settle(resolve);
    const timer = setTimeout(() => settle(() => reject(lastError)), ms);
    client.on('error', onError);
    client.once('ready', onReady);
  });
}

/** QUIT, or drop the socket (and stop reconnecting) when Redis is gone already. */
export async function quit(client: RedisClient): Promise<void> {
  await redisCall(client.quit()).catch(() => client.disconnect());
}

/**
 * A Lua script as a function of its keys then its arguments, by ioredis's defineCommand (EVALSHA,
 * EVAL once when Redis lacks it). Per client and name: each store defines its own once.
 */
export function script<T>(client: RedisClient, name: string, numberOfKeys: number, lua: string) {
  client.defineCommand(name, { numberOfKeys, lua });
  // defineCommand adds the method at run time; TypeScript knows it only by declaration merging.
  const command = (client as unknown as Record<string, (...args: string[]) => Promise<T>>)[name]!;
  return (...keysThenArgs: string[]): Promise<T> => command.apply(client, keysThenArgs);
}
