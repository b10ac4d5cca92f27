import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { MongoClient } from 'mongodb';
import { freePort } from './free-port.js';
import { serverMissing } from './server-requirement.js';

/** A MongoDB-compatible server for one suite; `url` names a database of its own. */
export interface MongoServer {
  readonly url: string;
  /** What runs: `MONGODB_URL`, `mongod` or `ferretdb`. */
  readonly kind: 'external' | 'mongod' | 'ferretdb';
  /** Stops the server, keeping its data; undefined for an external server (it cannot be stopped). */
  readonly stop?: () => Promise<void>;
  /** Starts it again on the same port and data. */
  readonly start?: () => Promise<void>;
  /** Drops the suite's database or stops the server and removes its files. */
  dispose(): Promise<void>;
}

const STARTUP_TIMEOUT_MS = 15_000;
const live = new Set<ChildProcess>();
// No orphans, whatever happens to the test run.
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

function findExecutable(name: string): string | undefined {
  const gobin = join(process.env.GOPATH?.split(delimiter)[0] ?? join(homedir(), 'go'), 'bin');
  for (const dir of [...(process.env.PATH ?? '').split(delimiter), gobin]) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Replaces the database in a MongoDB URL's path, keeping hosts and options. */
export function withDatabase(url: string, database: string): string {
  const match = /^([a-z+]+:\/\/[^/?]*)(?:\/[^?]*)?(\?.*)?$/i.exec(url);
  if (match === null) throw new Error('MONGODB_URL is not a mongodb:// URL');
  return `${match[1]}/${database}${match[2] ?? ''}`;
}

/** The server to test against, or the reason there is none (for `serverMissing`). */
export async function startMongoServer(): Promise<MongoServer | string> {
  const database = `plant_store_test_${randomUUID().replaceAll('-', '')}`;
  const given = process.env.MONGODB_URL;
  if (given) return external(withDatabase(given, database));
  const mongod = findExecutable('mongod');
  if (mongod !== undefined) {
    return spawned('mongod', database, (dir, port) => [
      mongod,
      ['--dbpath', dir, '--port', String(port), '--bind_ip', '127.0.0.1', '--quiet'],
    ]);
  }
  const ferretdb = findExecutable('ferretdb');
  if (ferretdb !== undefined) {
    return spawned('ferretdb', database, (dir, port) => [
      ferretdb,
      [
        '--handler=sqlite',
        `--sqlite-url=file:${dir}/`,
        `--state-dir=${dir}`,
        `--listen-addr=127.0.0.1:${port}`,
        // The debug listener would otherwise take port 8088; telemetry must never run.
        '--debug-addr=-',
        '--telemetry=disable',
        '--log-level=error',
      ],
    ]);
  }
  return 'no MONGODB_URL, and neither mongod nor ferretdb found (run scripts/install-ferretdb.sh)';
}

function external(url: string): MongoServer {
  return {
    url,
    kind: 'external',
    async dispose() {
      const client = new MongoClient(url, { serverSelectionTimeoutMS: 2000 });
      try {
        await client.db().dropDatabase();
      } finally {
        await client.close();
      }
    },
  };
}

async function spawned(
  kind: 'mongod' | 'ferretdb',
  database: string,
  command: (dir: string, port: number) => [string, string[]],
): Promise<MongoServer> {
  const dir = mkdtempSync(join(tmpdir(), `plant-store-${kind}-`));
  const port = await freePort();
  const [file, args] = command(dir, port);
  let child: ChildProcess | undefined;

  const start = async (): Promise<void> => {
    const output: string[] = [];
    const started = spawn(file, args, {
      env: { ...process.env, DO_NOT_TRACK: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = started;
    live.add(started);
    started.once('exit', () => live.delete(started));
    for (const stream of [started.stdout, started.stderr]) {
      stream?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    }
    await waitForPort(port, started, () => output.join('').slice(-2000));
  };

  const stop = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGTERM');
    const timer = setTimeout(() => running.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(timer);
  };

  try {
    await start();
  } catch (error) {
    await stop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `mongodb://127.0.0.1:${port}/${database}`,
    kind,
    stop,
    start,
    async dispose() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves once the port accepts connections; rejects if the process exits first. */
async function waitForPort(port: number, child: ChildProcess, log: () => string): Promise<void> {
  const until = Date.now() + STARTUP_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `server exited during start-up (${child.exitCode ?? child.signalCode}):\n${log()}`,
      );
    }
    if (await accepts(port)) return;
    if (Date.now() > until) throw new Error(`server did not listen on ${port}:\n${log()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * A server the test may stop and start again (for outages): missing, it goes through
 * serverMissing; given by MONGODB_URL, which the test cannot stop, the suite skips and says why.
 */
export async function startStoppableMongo(context: Mocha.Context): Promise<MongoServer> {
  const found = await startMongoServer();
  if (typeof found === 'string') {
    serverMissing(context, 'MongoDB', found);
    throw new Error('unreachable: serverMissing skips or throws');
  }
  if (found.stop === undefined) {
    await found.dispose();
    console.warn('    skipped: the outage test cannot stop a server given by MONGODB_URL');
    context.skip();
  }
  return found;
}
