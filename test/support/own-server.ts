import { accessSync, constants } from 'node:fs';
import { connect } from 'node:net';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

// What the tests and the bench share to run a store server of their own: finding its program
// (on PATH or in Go's bin, where scripts/install-ferretdb.sh puts FerretDB), its command line, and
// whether its port accepts connections yet.

/** The executable's path on PATH or in `$(go env GOPATH)/bin`, or undefined. */
export function findExecutable(name: string): string | undefined {
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

/** Whether something accepts TCP connections on the loopback port now. */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A MongoDB-compatible server to start: its kind and command line, for a data dir and a port. */
export interface MongoCommand {
  kind: 'mongod' | 'ferretdb';
  command(dir: string, port: number): [string, string[]];
}

/** mongod when installed, else FerretDB on SQLite, else undefined. */
export function mongoCommand(): MongoCommand | undefined {
  const mongod = findExecutable('mongod');
  if (mongod !== undefined) {
    return {
      kind: 'mongod',
      command: (dir, port) => [
        mongod,
        ['--dbpath', dir, '--port', String(port), '--bind_ip', '127.0.0.1', '--quiet'],
      ],
    };
  }
  const ferretdb = findExecutable('ferretdb');
  if (ferretdb !== undefined) {
    return {
      kind: 'ferretdb',
      command: (dir, port) => [
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
      ],
    };
  }
  return undefined;
}
