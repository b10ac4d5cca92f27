import { readFileSync } from 'node:fs';
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from '../adapters/http/server/http-server.js';
import { ConfigError } from '../adapters/config-error.js';
import { parseInteger } from './parse.js';

/** Descriptors kept for the stores' files and logs when connections are bounded. */
const RESERVED_DESCRIPTORS = 128;

/** The default connection bound: 4096, or the open-file limit less RESERVED_DESCRIPTORS if lower. */
export function defaultMaxConnections(limits = '/proc/self/limits'): number {
  let text: string;
  try {
    text = readFileSync(limits, 'utf8');
  } catch {
    return DEFAULT_HTTP_LIMITS.maxConnections;
  }
  const soft = Number(/^Max open files\s+(\d+)/m.exec(text)?.[1]);
  return Number.isFinite(soft) && soft > 0
    ? Math.max(1, Math.min(DEFAULT_HTTP_LIMITS.maxConnections, soft - RESERVED_DESCRIPTORS))
    : DEFAULT_HTTP_LIMITS.maxConnections;
}

export const HTTP_VARIABLES: readonly [keyof HttpLimits, string, number, number][] = [
  ['headersTimeoutMs', 'PLANT_STORE_HEADERS_TIMEOUT_MS', 1, 600_000],
  ['requestTimeoutMs', 'PLANT_STORE_REQUEST_TIMEOUT_MS', 1, 3_600_000],
  ['keepAliveTimeoutMs', 'PLANT_STORE_KEEP_ALIVE_TIMEOUT_MS', 1, 600_000],
  ['idleTimeoutMs', 'PLANT_STORE_IDLE_TIMEOUT_MS', 1, 3_600_000],
  ['sendTimeoutMs', 'PLANT_STORE_SEND_TIMEOUT_MS', 1, 3_600_000],
  ['maxBufferedOutputBytes', 'PLANT_STORE_MAX_BUFFERED_OUTPUT_BYTES', 65_536, 2 ** 40],
  ['maxConnections', 'PLANT_STORE_MAX_CONNECTIONS', 1, 1_000_000],
  ['maxConnectionsPerAddress', 'PLANT_STORE_MAX_CONNECTIONS_PER_ADDRESS', 1, 1_000_000],
  ['maxConnectionsPerNetwork', 'PLANT_STORE_MAX_CONNECTIONS_PER_NETWORK', 1, 1_000_000],
  ['backlog', 'PLANT_STORE_LISTEN_BACKLOG', 1, 65_535],
];

/** Reads the HTTP server's limits (PLANT_STORE_*_TIMEOUT_MS and the connection bounds). */
export function parseHttpLimits(env: NodeJS.ProcessEnv): HttpLimits {
  const limits: HttpLimits = { ...DEFAULT_HTTP_LIMITS, maxConnections: defaultMaxConnections() };
  for (const [field, name, min, max] of HTTP_VARIABLES) {
    limits[field] = parseInteger(env, name, limits[field], min, max);
  }
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new ConfigError(
      'PLANT_STORE_HEADERS_TIMEOUT_MS must not exceed PLANT_STORE_REQUEST_TIMEOUT_MS',
    );
  }
  return limits;
}

/**
 * The limits one of `workers` processes holds: an equal share (rounded down) of the per-address
 * and per-network bounds, so that one client address holds at most the configured bound over the
 * instance; every other limit is per process. Throws when a bound is smaller than `workers`.
 */
export function workerShare(
  limits: Partial<HttpLimits> | undefined,
  workers: number,
): Partial<HttpLimits> {
  const shared = { ...limits };
  for (const [field, name] of HTTP_VARIABLES) {
    if (field !== 'maxConnectionsPerAddress' && field !== 'maxConnectionsPerNetwork') continue;
    const bound = limits?.[field] ?? DEFAULT_HTTP_LIMITS[field];
    if (bound < workers) {
      throw new ConfigError(
        `${name} (${bound}) must be at least the number of workers (${workers}): each worker holds an equal share of it`,
      );
    }
    shared[field] = Math.floor(bound / workers);
  }
  return shared;
}
