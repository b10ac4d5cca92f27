import { spawn, type ChildProcess, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

/** `npm start` in a child process (through tsx, so no build is needed): the service as users run it. */
export interface ServiceProcess {
  readonly port: number;
  /** Sends SIGTERM and waits for the process to exit. */
  stop(): Promise<void>;
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const STARTUP_TIMEOUT_MS = 30_000;
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

function spawnMain(env: Record<string, string>): ChildProcessByStdio<null, Readable, Readable> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'error', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

/** Starts `src/main.ts` on a free port with the given environment; resolves once it listens. */
export async function startService(env: Record<string, string>): Promise<ServiceProcess> {
  const child = spawnMain(env);
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`service did not start:\n${output}`)),
      STARTUP_TIMEOUT_MS,
    );
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on http:\/\/[^\s]+:(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code}:\n${output}`));
    });
  }).catch(async (error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  return {
    port,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Runs `src/main.ts` expecting start-up to fail; resolves its exit code and what it wrote to stderr. */
export async function failedStart(
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string }> {
  const child = spawnMain(env);
  let stderr = '';
  child.stdout.resume();
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stderr };
}
