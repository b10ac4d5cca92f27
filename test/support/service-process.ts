import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

/** A running `src/main.ts`: its base URL and how to stop it. */
export interface ServiceProcess {
  readonly url: string;
  stop(): Promise<void>;
}

// Whatever happens to the test run, no service process outlives it.
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

function spawnMain(env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

/** Starts the service as `npm start` would, on a free port; resolves once it listens. */
export async function startService(env: Record<string, string>): Promise<ServiceProcess> {
  const child = spawnMain(env);
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const listening = /listening on (http:\/\/\S+)/.exec(output);
      if (listening) resolve(listening[1]!);
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.once('exit', (code) =>
      reject(new Error(`service exited (${code}) at start:\n${output}`)),
    );
  });
  return {
    url,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Runs the service expecting it to fail start-up; resolves its exit code and stderr. */
export async function failedStart(
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string }> {
  const child = spawnMain(env);
  let stderr = '';
  child.stdout!.resume();
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stderr };
}
