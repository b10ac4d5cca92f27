import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { LISTENING } from './common.js';
import type { CollectJob, LoadJob, PacedJob, ReceiverJob } from './load.js';

// What every bench orchestrator needs from the machine: pinning, starting and stopping servers,
// and reading a process's CPU time and RSS from /proc.

export const ROOT = new URL('..', import.meta.url).pathname;

/** Servers on core 0, load on core 1, when taskset works and there are two cores. */
export const pinning = (() => {
  if (cpus().length < 2) return undefined;
  const probe = spawnSync('taskset', ['-c', '0', 'true']);
  return probe.status === 0 ? { server: '0', load: '1' } : undefined;
})();

/** node with its arguments, on the given core when pinning works. */
export function nodeCommand(core: string, nodeArgs: string[]): [string, string[]] {
  return pinning === undefined
    ? [process.execPath, nodeArgs]
    : ['taskset', ['-c', core, process.execPath, ...nodeArgs]];
}

/**
 * A store server the bench starts, on the servers' core when pinning works: it then takes its CPU
 * from the server it answers (and shows as `store µs/req`), never from the load generator.
 */
export const onServerCore = (command: string, commandArgs: string[]): [string, string[]] =>
  pinning === undefined
    ? [command, commandArgs]
    : ['taskset', ['-c', pinning.server, command, ...commandArgs]];

/** Another program (a store server), on the load core when pinning works. */
export const onLoadCore = (command: string, commandArgs: string[]): [string, string[]] =>
  pinning === undefined
    ? [command, commandArgs]
    : ['taskset', ['-c', pinning.load, command, ...commandArgs]];

export interface Running {
  child: ChildProcess;
  url: string;
  output: () => string;
}

// Servers still running when the bench stops (an error, Ctrl-C) are stopped with it.
export const children = new Set<ChildProcess>();

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts a node server (pinned to `cores`) and resolves once it prints its listening line, within
 * `waitMs` (the scaling harness fills its store first).
 */
export async function startServer(
  nodeArgs: string[],
  env: Record<string, string | undefined>,
  cores = pinning?.server ?? '',
  waitMs = 60_000,
): Promise<Running> {
  const [command, commandArgs] = nodeCommand(cores, nodeArgs);
  const child = spawn(command, commandArgs, {
    cwd: ROOT,
    env: { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', NODE_ENV: 'production', ...env },
    // stdout is the service's JSON log (an access line per request): to /dev/null, as to a log
    // file, so that a reader falling behind never blocks the server. Ready lines are on stderr.
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let text = '';
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk));
  const deadline = Date.now() + waitMs;
  for (;;) {
    const match = LISTENING.exec(text);
    if (match) return { child, url: `http://${match[1]}:${match[2]}`, output: () => text };
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server ${nodeArgs.join(' ')} did not start:\n${text}`);
    }
    await sleep(50);
  }
}

export async function stopServer({ child }: Running): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** The process and its descendants (Linux: /proc/<pid>/task/<tid>/children), e.g. cluster workers. */
function processTree(pid: number): number[] {
  try {
    const children = readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean),
    );
    return [pid, ...children.flatMap((child) => processTree(Number(child)))];
  } catch {
    return [pid];
  }
}

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/** CPU seconds a process and its children have used, all threads, user and system (Linux), or NaN. */
export function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    let ticks = 0;
    for (const each of processTree(pid)) {
      // Fields after the command's closing parenthesis; utime and stime are the 12th and 13th.
      const stat = readFileSync(`/proc/${each}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    }
    return ticks / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}

/** Resident set size of a process in MB (Linux), or NaN where /proc is not there. */
export function rssMb(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
    return kb === undefined ? Number.NaN : Number(kb) / 1024;
  } catch {
    return Number.NaN;
  }
}

export const median = (values: number[]): number => {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/**
 * The load generator (bench/load.ts) in its own process on the load core, and `ask`, which sends
 * it a job and resolves its answer. Killed, with every server still running, when the bench exits.
 */
export function startLoader(): {
  ready: Promise<void>;
  ask: <T>(job: LoadJob | CollectJob | ReceiverJob | PacedJob) => Promise<T>;
  stop: () => void;
} {
  const [command, commandArgs] = nodeCommand(pinning?.load ?? '', [
    '--import',
    'tsx',
    'bench/load.ts',
  ]);
  const loader = spawn(command, commandArgs, {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = new Promise<void>((resolve, reject) => {
    loader.once('message', () => resolve());
    loader.once('exit', (code) => reject(new Error(`load generator exited (${code})`)));
  });
  process.once('exit', () => {
    children.forEach((child) => child.kill('SIGKILL'));
    loader.kill();
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => process.exit(130));
  }
  const ask = <T>(job: LoadJob | CollectJob | ReceiverJob | PacedJob): Promise<T> =>
    new Promise((resolve, reject) => {
      loader.once('message', (message: { result?: T; error?: string }) =>
        message.result ? resolve(message.result) : reject(new Error(message.error)),
      );
      loader.send(job);
    });
  return { ready, ask, stop: () => loader.kill() };
}
