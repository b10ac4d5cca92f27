import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { Cluster, Redis } from 'ioredis';
import { parseRedisUrl } from '../../src/adapters/storage/redis/redis-url.js';
import { freePort } from './free-port.js';

const run = promisify(execFile);
const MISSING = 'redis-server is not installed (scripts/install-redis.sh installs it)';

/** A Redis a suite may use: its URL, a key prefix of its own, and how to give it back. */
export interface RedisUnderTest {
  readonly url: string;
  readonly prefix: string;
  close(): Promise<void>;
}

// Whatever happens to the test run, no redis-server outlives it.
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

const hasRedisServer = (): Promise<boolean> =>
  run('redis-server', ['--version']).then(
    () => true,
    () => false,
  );

/** Resolves when the port answers PING with PONG; rejects after `ms`. */
async function untilPong(port: number, child: ChildProcess, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server on ${port} exited at start-up`);
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
      const done = (text: string): void => {
        socket.destroy();
        resolve(text);
      };
      socket.setEncoding('utf8');
      socket.setTimeout(500, () => done(''));
      socket.once('data', done);
      socket.once('error', () => done(''));
      socket.once('close', () => done(''));
    });
    // With requirepass, an unauthenticated PING is refused: the server is up all the same.
    if (answer.startsWith('+PONG') || answer.startsWith('-NOAUTH')) return;
    if (Date.now() > deadline) throw new Error(`redis-server on ${port} did not answer PING`);
    await sleep(20);
  }
}

/** One ephemeral redis-server in a temp dir, on loopback, persisting nothing. */
export class RedisProcess {
  private child: ChildProcess | undefined;

  constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly extraArgs: readonly string[] = [],
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts it (again) on its port and resolves when it answers. */
  async start(): Promise<void> {
    const args = [
      ['--port', `${this.port}`],
      ['--bind', '127.0.0.1'],
      // Persist nothing: the run's data goes with the server.
      ['--save', ''],
      ['--appendonly', 'no'],
      ['--dir', this.dir],
      ['--logfile', join(this.dir, `redis-${this.port}.log`)],
    ].flat();
    const child = spawn('redis-server', [...args, ...this.extraArgs], { stdio: 'ignore' });
    running.add(child);
    child.once('exit', () => running.delete(child));
    this.child = child;
    await untilPong(this.port, child);
  }

  /** Stops it and waits until it is gone; start() brings it back on the same port. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGCONT');
    child.kill('SIGTERM');
    const forced = setTimeout(() => child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(forced);
  }

  /** Freezes it: connections stay open but nothing answers (SIGSTOP); resume() undoes it. */
  pause(): void {
    this.child?.kill('SIGSTOP');
  }

  resume(): void {
    this.child?.kill('SIGCONT');
  }
}

async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

/** Starts `count` servers in one temp dir; on any failure stops what started and removes the dir. */
async function startProcesses(
  count: number,
  args: (port: number, bus: number, dir: string) => string[],
): Promise<{ processes: RedisProcess[]; dispose: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'plant-store-redis-'));
  const ports = await distinctFreePorts(count * 2);
  const processes = Array.from(
    { length: count },
    (_, i) => new RedisProcess(ports[i]!, dir, args(ports[i]!, ports[count + i]!, dir)),
  );
  const dispose = async (): Promise<void> => {
    await Promise.all(processes.map((p) => p.stop()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await Promise.all(processes.map((p) => p.start()));
  } catch (error) {
    await dispose();
    throw error;
  }
  return { processes, dispose };
}

/**
 * An own redis-server on a free port (never the machine's), with these extra arguments; a reason
 * string when there is none.
 */
export async function startRedisServer(
  extraArgs: readonly string[] = [],
): Promise<(RedisUnderTest & { server: RedisProcess }) | string> {
  if (!(await hasRedisServer())) return MISSING;
  const { processes, dispose } = await startProcesses(1, () => [...extraArgs]);
  const server = processes[0]!;
  return { server, url: server.url, prefix: 'plant-store:', close: dispose };
}

/**
 * An own redis-server on a free port that is not started yet (`server.start()` brings it up, for
 * a store that comes after the service); `close` stops it and removes its files. A reason string
 * when there is none.
 */
export async function unstartedRedisServer(
  extraArgs: readonly string[] = [],
): Promise<{ server: RedisProcess; close(): Promise<void> } | string> {
  if (!(await hasRedisServer())) return MISSING;
  const dir = await mkdtemp(join(tmpdir(), 'plant-store-redis-'));
  const server = new RedisProcess(await freePort(), dir, extraArgs);
  return {
    server,
    close: async () => {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A three-master Redis Cluster on loopback, made for the run; a reason string when there is none. */
export async function startRedisCluster(): Promise<
  (RedisUnderTest & { servers: RedisProcess[] }) | string
> {
  if (!(await hasRedisServer())) return MISSING;
  const { processes, dispose } = await startProcesses(3, (port, bus, dir) => [
    ...['--cluster-enabled', 'yes', '--cluster-port', `${bus}`, '--cluster-node-timeout', '2000'],
    ...['--cluster-config-file', join(dir, `nodes-${port}.conf`)],
  ]);
  try {
    const nodes = processes.map((p) => `127.0.0.1:${p.port}`);
    await run('redis-cli', ['--cluster', 'create', ...nodes, '--cluster-yes'], { timeout: 20_000 });
    for (const { port } of processes) {
      for (let tries = 0; ; tries++) {
        const { stdout } = await run('redis-cli', ['-p', `${port}`, 'cluster', 'info']);
        if (stdout.includes('cluster_state:ok')) break;
        if (tries > 200) throw new Error(`cluster node ${port} never reached cluster_state:ok`);
        await sleep(50);
      }
    }
    const url = `redis+cluster://${nodes.join(',')}`;
    return { url, prefix: 'plant-store:', servers: processes, close: dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}

/** Deletes every key under the prefix, on every master. */
async function deleteKeys(url: string, prefix: string): Promise<void> {
  const target = parseRedisUrl(url);
  const auth = { username: target.username, password: target.password };
  const client = target.cluster
    ? new Cluster(target.nodes, { redisOptions: auth })
    : new Redis({ ...target.nodes[0], ...auth, db: target.db });
  try {
    for (const node of client instanceof Cluster ? client.nodes('master') : [client]) {
      for await (const keys of node.scanStream({ match: `${prefix}*`, count: 500 })) {
        // One key a command: on a cluster node, keys of one scan may lie in different slots.
        for (const key of keys as string[]) await node.unlink(key);
      }
    }
  } finally {
    client.disconnect();
  }
}

/** REDIS_URL with a fresh key prefix (its keys deleted after) when given, else an own server. */
export async function useRedis(): Promise<RedisUnderTest | string> {
  const url = process.env.REDIS_URL;
  if (url === undefined || url === '') return startRedisServer();
  const prefix = `plant-store-test:${randomUUID()}:`;
  return { url, prefix, close: () => deleteKeys(url, prefix) };
}

/** The two Redis deployments every Redis storage suite runs on: a single server and a cluster. */
export const REDIS_DEPLOYMENTS = [
  ['Redis', useRedis],
  ['Redis Cluster', startRedisCluster],
] as const;
