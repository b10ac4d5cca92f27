import { spawn, type ChildProcess, type ChildProcessByStdio } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

/** `npm start`: src/main.ts, through tsx so that no build is needed. */
export const MAIN = ['src/main.ts'];
/** The `plant-store` bin: src/cli.ts through tsx, as the built bin runs; append its arguments. */
export const CLI = ['src/cli.ts'];
/** The built bin, exactly what `npm start` and users run; call `buildDist()` first. */
export const BUILT_CLI = ['dist/cli.js'];

/** A program that ran to its end. */
export interface ProgramOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** A service process listening on loopback. */
export interface ServiceProcess {
  readonly port: number;
  /** The process id of node itself (without a prefix, the spawned child). */
  readonly pid: number;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** What it wrote to stdout alone so far. */
  stdout(): string;
  /** Whether the process is still running. */
  running(): boolean;
  /** The first match of `pattern` in its output; fails if none appears in time. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  /** Sends SIGTERM and resolves its exit code once it is gone (null if it had to be killed). */
  stop(): Promise<number | null>;
  /** Sends SIGKILL (a crash: nothing is flushed or closed) and resolves once it is gone. */
  kill(): Promise<void>;
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// Resolved here, so that the loader is found whatever the program's working directory.
const TSX = import.meta.resolve('tsx');
const STARTUP_TIMEOUT_MS = 30_000;
const LISTENING = /listening on http:\/\/127\.0\.0\.1:(\d+)/;
const live = new Set<ChildProcess>();
/** Data directories made for programs whose environment names none; removed at exit. */
const madeDataDirs: string[] = [];
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
  for (const dir of madeDataDirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * A data directory of its own for a program whose environment names none, so that no test writes
 * the repository's `.plant-store/` (the default) nor sees another test's plants or tokens.
 */
function ownDataDir(env: Record<string, string>): Record<string, string> {
  if (env.PLANT_STORE_DATA_DIR !== undefined) return {};
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-data-'));
  madeDataDirs.push(dir);
  return { PLANT_STORE_DATA_DIR: dir };
}

type Child = ChildProcessByStdio<null, Readable, Readable>;

/**
 * Runs `node --import tsx <command>` in the repository. Of this process's environment only PATH
 * passes, so that a developer's PLANT_STORE_* or REDIS_URL never changes what a test sees; a
 * program given no PLANT_STORE_DATA_DIR gets a fresh one (ownDataDir).
 */
export function spawnProgram(
  command: string[],
  env: Record<string, string>,
  prefix: string[] = [],
): Child {
  const node = [process.execPath, '--import', TSX, ...command];
  // A prefix runs node through another program, e.g. `taskset -c 0` to pin it to a core.
  const [file, ...args] = [...prefix, ...node] as [string, ...string[]];
  const child = spawn(file, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH, PORT: '0', LOG_LEVEL: 'warn', ...ownDataDir(env), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

/** Resolves once the process has exited and its output is read. */
const closed = (child: Child): Promise<void> =>
  new Promise((resolve) => child.once('close', () => resolve()));

/** Runs a program (`MAIN`, `[...CLI, 'tokens', ...]`, any script) to its end. */
export async function runProgram(
  command: string[],
  env: Record<string, string> = {},
  timeoutMs = 30_000,
): Promise<ProgramOutcome> {
  const child = spawnProgram(command, env);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await closed(child);
  clearTimeout(timer);
  if (child.exitCode === null)
    expect.fail(`${command.join(' ')} did not exit within ${timeoutMs} ms:\n${stdout}${stderr}`);
  return { code: child.exitCode, stdout, stderr };
}

/** A program started without waiting for its end: signal it, then await its outcome. */
export interface RunningProgram {
  /** Resolves once it has exited (with code null when a signal ended it). */
  readonly outcome: Promise<{
    code: number | null;
    signal: string | null;
    stdout: string;
    stderr: string;
  }>;
  kill(signal: NodeJS.Signals): void;
}

/** Starts a program (`[...CLI, 'import', ...]`) as runProgram does, returning at once. */
export function startProgram(command: string[], env: Record<string, string> = {}): RunningProgram {
  const child = spawnProgram(command, env);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  const outcome = closed(child).then(() => ({
    code: child.exitCode,
    signal: child.signalCode,
    stdout,
    stderr,
  }));
  return { outcome, kill: (signal) => child.kill(signal) };
}

/** How to start a service process beyond its environment. */
export interface StartOptions {
  /** Runs node through this program, e.g. `['taskset', '-c', '0']`. */
  prefix?: string[];
  /** How long to wait for the listening line (and for each waitFor); 30 s unless given. */
  timeoutMs?: number;
}

/**
 * Starts the service (`MAIN`, or `[...CLI, 'serve']`) on a free port (unless env has PORT);
 * resolves once it prints its listening line, that is once its storage is open.
 */
export async function startService(
  env: Record<string, string>,
  command: string[] = MAIN,
  { prefix = [], timeoutMs = STARTUP_TIMEOUT_MS }: StartOptions = {},
): Promise<ServiceProcess> {
  const child = spawnProgram(command, env, prefix);
  let text = '';
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    text += chunk;
    stdout += chunk;
  });
  child.stderr.on('data', (chunk: Buffer) => (text += chunk));
  let gone = false;
  const exited = closed(child).then(() => {
    gone = true;
  });

  const waitFor = async (pattern: RegExp): Promise<RegExpExecArray> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = pattern.exec(text);
      if (match) return match;
      if (gone || Date.now() > deadline) break;
      await sleep(50);
    }
    return expect.fail(`no ${pattern} in what ${command.join(' ')} wrote:\n${text}`);
  };
  const stop = async (): Promise<number | null> => {
    if (!gone) child.kill('SIGTERM');
    const forced = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(forced);
    return child.exitCode;
  };

  const listening = await waitFor(LISTENING).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  const kill = async (): Promise<void> => {
    if (!gone) child.kill('SIGKILL');
    await exited;
  };
  return {
    port: Number(listening[1]),
    pid: child.pid!,
    output: () => text,
    stdout: () => stdout,
    running: () => !gone,
    waitFor,
    stop,
    kill,
  };
}

/** A worker's own listening line under `serve --workers` (stdout, LOG_LEVEL info). */
export const WORKER_LISTENING = /"pid":(\d+),"msg":"listening"/g;

/** The pids of the workers that said they listen, in the order they did. */
export const workerPids = (service: ServiceProcess): number[] =>
  [...service.output().matchAll(WORKER_LISTENING)].map((match) => Number(match[1]));

/**
 * `plant-store serve --workers 2` on a free port, at LOG_LEVEL info (the workers' listening lines),
 * on the default storage (LMDB in a data directory of its own) unless `env` names another;
 * resolves once both workers say they listen. Three processes compile through tsx on two shared
 * cores: each wait is allowed a minute.
 */
export async function startWorkers(env: Record<string, string>): Promise<ServiceProcess> {
  const service = await startService(
    { LOG_LEVEL: 'info', ...env },
    [...CLI, 'serve', '--workers', '2'],
    {
      timeoutMs: 60_000,
    },
  );
  // The primary's line (stderr) can be read before a worker's own (stdout, another pipe).
  await service.waitFor(/"pid":\d+,"msg":"listening"[\s\S]*"pid":\d+,"msg":"listening"/);
  return service;
}

/**
 * Builds dist/ when a source is newer than it (what `npm start` does first), for tests that start
 * so many processes that compiling each through tsx would cost minutes.
 */
export async function buildDist(): Promise<void> {
  const { code, stderr } = await runProgram(['scripts/build-if-stale.ts'], {}, 180_000);
  if (code !== 0) throw new Error(`building dist/ failed: ${stderr}`);
}
