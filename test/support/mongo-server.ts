import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { freePort } from './free-port.js';
import { accepts, mongoCommand } from './own-server.js';
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

/** Replaces the database in a MongoDB URL's path, keeping hosts and options. */
export function withDatabase(url: string, database: string): string {
  const match = /^([a-z+]+:\/\/[^/?]*)(?:\/[^?]*)?(\?.*)?$/i.exec(url);
  if (match === null) throw new Error('MONGODB_URL is not a mongodb:// URL');
  return `${match[1]}/${database}${match[2] ?? ''}`;
}

const newDatabase = () => `plant_store_test_${randomUUID().replaceAll('-', '')}`;

/** The server to test against, or the reason there is none (for `serverMissing`). */
export async function startMongoServer(): Promise<MongoServer | string> {
  const given = process.env.MONGODB_URL;
  if (given) return external(withDatabase(given, newDatabase()));
  const own = await startOwnMongo();
  return typeof own === 'string' ? `no MONGODB_URL, and ${own}` : own;
}

/** A mongod or ferretdb of the suite's own on a free port, or the reason there is none. */
async function startOwnMongo(): Promise<MongoServer | string> {
  const database = newDatabase();
  const found = mongoCommand();
  if (found !== undefined) return spawned(found.kind, database, found.command);
  return 'neither mongod nor ferretdb found (run scripts/install-ferretdb.sh)';
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
    // Already running: a second process would find the port taken, and the first would outlive dispose.
    if (child !== undefined && child.exitCode === null && child.signalCode === null) return;
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

/**
 * A server of the suite's own, which it may stop and start again (for outages), even when
 * MONGODB_URL names one; when there is none, it goes through serverMissing.
 */
export async function startStoppableMongo(context: Mocha.Context): Promise<MongoServer> {
  const found = await startOwnMongo();
  if (typeof found === 'string') {
    serverMissing(context, 'MongoDB', found);
    throw new Error('unreachable: serverMissing skips or throws');
  }
  return found;
}
