/** Where the Redis store connects, read from a `REDIS_URL`; a cluster's nodes are its seed nodes. */
export interface RedisTarget {
  cluster: boolean;
  nodes: { host: string; port: number }[];
  db: number;
  tls: boolean;
  username?: string;
  password?: string;
}

const SCHEME = /^(rediss?)(\+cluster)?:\/\/(.*)$/s;
const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]]+)(?::([0-9]{1,5}))?$/;

/** A REDIS_URL that cannot be used; the message says what is wrong, never the password. */
export class RedisUrlError extends Error {
  override name = 'RedisUrlError';
}

function parseNode(text: string): { host: string; port: number } {
  const match = HOST_PORT.exec(text);
  const port = match?.[2] === undefined ? 6379 : Number(match[2]);
  if (match === null || port < 1 || port > 65535) {
    throw new RedisUrlError(`"${text}" is not a host or host:port`);
  }
  const host = match[1]!.startsWith('[') ? match[1]!.slice(1, -1) : match[1]!;
  return { host, port };
}

function decode(text: string, what: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new RedisUrlError(`the ${what} is not valid percent-encoding`);
  }
}

/**
 * Reads `redis[s]://[[user]:password@]host[:port][/db]` or, for a Redis Cluster's seed nodes,
 * `redis[s]+cluster://[[user]:password@]host:port[,host:port...]` (docs/storage-redis.md).
 */
export function parseRedisUrl(url: string): RedisTarget {
  const scheme = SCHEME.exec(url.trim());
  if (scheme === null) {
    throw new RedisUrlError(
      'must start with redis://, rediss://, redis+cluster:// or rediss+cluster://',
    );
  }
  const [, protocol, cluster, rest = ''] = scheme;
  // Only a fragment and a query are cut; neither carries anything the store uses.
  const withoutQuery = rest.replace(/[?#].*$/s, '');
  const at = withoutQuery.lastIndexOf('@');
  const userInfo = at === -1 ? undefined : withoutQuery.slice(0, at);
  const [authority = '', path = '', ...more] = withoutQuery.slice(at + 1).split('/');
  if (more.length > 0) throw new RedisUrlError('has more than one path segment');
  if (authority === '') throw new RedisUrlError('names no host');
  if (path !== '' && (cluster !== undefined || !/^[0-9]{1,5}$/.test(path))) {
    throw new RedisUrlError(
      cluster === undefined ? 'path must be a database number' : 'cluster URLs take no database',
    );
  }
  const hosts = authority.split(',');
  if (cluster === undefined && hosts.length > 1) {
    throw new RedisUrlError('names several hosts; use redis+cluster:// for a cluster');
  }
  const target: RedisTarget = {
    cluster: cluster !== undefined,
    nodes: hosts.map(parseNode),
    db: path === '' ? 0 : Number(path),
    tls: protocol === 'rediss',
  };
  if (userInfo !== undefined) {
    const colon = userInfo.indexOf(':');
    const username = decode(colon === -1 ? userInfo : userInfo.slice(0, colon), 'user name');
    if (username !== '') target.username = username;
    if (colon !== -1) target.password = decode(userInfo.slice(colon + 1), 'password');
  }
  return target;
}

/** The target's nodes as `host:port,...`: safe to log, no credentials. */
export const describeRedisTarget = (target: RedisTarget): string =>
  target.nodes
    .map(({ host, port }) => `${host.includes(':') ? `[${host}]` : host}:${port}`)
    .join(',');
