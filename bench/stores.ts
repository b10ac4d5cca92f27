import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../test/support/free-port.js';
import { accepts, findExecutable, mongoCommand } from '../test/support/own-server.js';

// The stores a bench run measures besides memory: the URL given in BENCH_REDIS_URL /
// BENCH_MONGODB_URL, or else a private server of the run's own (redis-server; mongod or FerretDB)
// when one is installed, on a free loopback port, persisting nothing, stopped with the run; and
// the embedded store (LMDB) in a temporary directory, removed with the run.

/**
 * A store the run uses: its URL (for the embedded store, its directory), what it is, and the pid
 * of its server when the run started one.
 */
export interface BenchStore {
  kind: 'redis' | 'mongodb' | 'lmdb';
  url: string;
  /** `BENCH_REDIS_URL`, `redis-server`, `mongod`, `ferretdb (sqlite)`. */
  what: string;
  pid?: number;
  stop(): Promise<void>;
}

/** Starts `command` (through `wrap`, e.g. taskset) and resolves once its port accepts. */
async function startOwn(
  kind: BenchStore['kind'],
  what: string,
  wrap: (command: string, args: string[]) => [string, string[]],
  command: (dir: string, port: number) => [string, string[]],
  url: (port: number) => string,
): Promise<BenchStore> {
  const dir = mkdtempSync(join(tmpdir(), `plant-store-bench-${kind}-`));
  const port = await freePort();
  const [file, args] = wrap(...command(dir, port));
  const child: ChildProcess = spawn(file, args, {
    env: { ...process.env, DO_NOT_TRACK: '1' },
    stdio: 'ignore',
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', () => child.kill('SIGKILL'));
  const deadline = Date.now() + 15_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`${what} did not start on port ${port}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { kind, url: url(port), what, ...(child.pid && { pid: child.pid }), stop };
}

const given = (kind: BenchStore['kind'], url: string, variable: string): BenchStore => ({
  kind,
  url,
  what: variable,
  stop: async () => {},
});

/**
 * Redis and MongoDB for the run: given URLs first, else own servers when installed (`wrap` puts
 * them on a core). `skip` leaves a kind out. With `ferretdb: false` a FerretDB (the only MongoDB
 * found) is left out, and `notes` says so: on SQLite it answers too slowly to be measured here.
 */
export async function benchStores(
  wrap: (command: string, args: string[]) => [string, string[]],
  skip: ReadonlySet<string>,
  { ferretdb = true, notes = [] }: { ferretdb?: boolean; notes?: string[] } = {},
): Promise<BenchStore[]> {
  const stores: BenchStore[] = [];
  const { BENCH_REDIS_URL, BENCH_MONGODB_URL } = process.env;
  if (!skip.has('redis')) {
    const redis = findExecutable('redis-server');
    if (BENCH_REDIS_URL) stores.push(given('redis', BENCH_REDIS_URL, 'BENCH_REDIS_URL'));
    else if (redis !== undefined) {
      stores.push(
        await startOwn(
          'redis',
          'redis-server',
          wrap,
          (dir, port) => [
            redis,
            [
              ...['--port', `${port}`, '--bind', '127.0.0.1', '--dir', dir],
              ...['--save', '', '--appendonly', 'no'],
            ],
          ],
          (port) => `redis://127.0.0.1:${port}`,
        ),
      );
    }
  }
  if (!skip.has('mongodb')) {
    const found = mongoCommand();
    const database = `plant_store_bench_${process.pid}`;
    const url = (port: number) => `mongodb://127.0.0.1:${port}/${database}`;
    if (BENCH_MONGODB_URL) stores.push(given('mongodb', BENCH_MONGODB_URL, 'BENCH_MONGODB_URL'));
    else if (found?.kind === 'ferretdb' && !ferretdb) {
      notes.push(
        'mongodb left out: only FerretDB is installed, whose SQLite backend answers too slowly to be measured here (--ferretdb includes it; BENCH_MONGODB_URL names a MongoDB)',
      );
    } else if (found !== undefined) {
      const what = found.kind === 'mongod' ? 'mongod' : 'ferretdb (sqlite)';
      stores.push(await startOwn('mongodb', what, wrap, found.command, url));
    }
  }
  if (!skip.has('lmdb')) {
    const dir = mkdtempSync(join(tmpdir(), 'plant-store-bench-lmdb-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const stop = async () => rmSync(dir, { recursive: true, force: true });
    stores.push({ kind: 'lmdb', url: dir, what: 'embedded (LMDB), durable commits', stop });
  }
  return stores;
}
