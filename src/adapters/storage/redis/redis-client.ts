import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { withinDeadline } from '../deadline.js';
import type { RedisTarget } from './redis-url.js';

export type RedisClient = Redis | Cluster;

// Every wait is bounded so that a request fails fast (503) instead of hanging on a lost server:
// no offline queue (a command issued while disconnected fails at once instead of running later,
// after its caller was told it failed), no resend of commands lost with a connection, a timeout
// for a server that accepts but does not answer. Reconnection itself never gives up.
// Commands issued in one event-loop turn leave as one pipeline (auto-pipelining): one write and
// one read for many requests, which cuts Redis's CPU per request to a third (list) and a half
// (create) and the service's own a little (bench/README.md). A pipelined command's own timeout starts only
// when its pipeline is written, so the stores cap each operation themselves (deadline.ts).
const BOUNDED = {
  enableAutoPipelining: true,
  connectTimeout: 1000,
  commandTimeout: 1500,
  socketTimeout: 2000,
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
  enableOfflineQueue: false,
} satisfies RedisOptions;

// Reconnect quickly after a restart, then every second at most.
const reconnectDelay = (attempt: number): number => Math.min(50 * attempt, 1000);

/** Builds the client for the target; it connects in the background and reconnects by itself. */
export function createRedisClient(target: RedisTarget): RedisClient {
  const auth = {
    ...(target.username === undefined ? {} : { username: target.username }),
    ...(target.password === undefined ? {} : { password: target.password }),
    ...(target.tls ? { tls: {} } : {}),
  };
  if (!target.cluster) {
    return new Redis({
      ...BOUNDED,
      ...auth,
      ...target.nodes[0]!,
      db: target.db,
      retryStrategy: reconnectDelay,
    });
  }
  const { enableOfflineQueue, enableAutoPipelining, ...perNode } = BOUNDED;
  return new Cluster(target.nodes, {
    enableOfflineQueue,
    enableAutoPipelining,
    clusterRetryStrategy: reconnectDelay,
    // Nodes reconnect by themselves too, so that a restarted master is used again at once.
    clusterNodeRetryStrategy: reconnectDelay,
    slotsRefreshTimeout: 1000,
    redisOptions: { ...perNode, ...auth },
  });
}

const UNAVAILABLE_NAMES = new Set([
  'MaxRetriesPerRequestError',
  'AbortError',
  'ClusterAllFailedError',
]);
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
// ioredis's own messages for a lost, closed or unready connection, and the Redis replies that mean
// "not now" (loading, failover, cluster resharding or down, a busy script).
const UNAVAILABLE_MESSAGE =
  /^(?:Command timed out|Connection is closed|Stream isn't writeable|Cluster isn't ready|Cluster is (?:disconnected|disconnecting|ended)|None of startup nodes|Too many Cluster redirections|Socket timeout|connect ETIMEDOUT|Failed to refresh slots cache|Node is disconnected|No master node|LOADING|BUSY |TRYAGAIN|CLUSTERDOWN|MASTERDOWN|READONLY)/;

/** Whether an error from ioredis means that Redis cannot be reached now (as opposed to a bug). */
export function isUnavailableError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code } = error as { code?: unknown };
  return (
    UNAVAILABLE_NAMES.has(error.name) ||
    (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) ||
    UNAVAILABLE_MESSAGE.test(error.message)
  );
}

// Redis replies that mean "up, but taking no writes": out of memory under noeviction (OOM), a
// failed snapshot with stop-writes-on-bgsave-error (MISCONF), too few replicas (NOREPLICAS).
const REFUSAL_MESSAGE = /^(?:OOM|MISCONF|NOREPLICAS) /;

/** Whether an error from ioredis means that Redis refuses writes until an operator acts. */
export function isRefusalError(error: unknown): boolean {
  return error instanceof Error && REFUSAL_MESSAGE.test(error.message);
}

/**
 * One command under the store deadline: "Redis cannot be reached" becomes storage-unavailable
 * (and, with `refusals`, "Redis takes no writes" storage-refuses-writes). The wait is capped
 * here: a command waiting in an auto-pipeline behind one that hangs is not timed by the client
 * until its own pipeline is written, and a Cluster may retry, redirect and refresh slots first.
 */
export const redisCall = <T>(command: Promise<T>, refusals = false): Promise<T> =>
  withinDeadline(command, isUnavailableError, refusals ? isRefusalError : undefined);

/**
 * Resolves once the client is ready. Rejects with the last connection error when it is not ready
 * within `ms` (`earlier`, the one before this wait, when none came during it; else "no answer"),
 * and at once with an error that waiting cannot heal (a refused password, say): ioredis would
 * otherwise reconnect and fail the same way forever.
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
