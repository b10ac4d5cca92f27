import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { expect } from 'chai';

const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;
// Resolved here, so the program can run from any working directory.
const TSX = import.meta.resolve('tsx');

export interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `plant-store <args>` (src/cli.ts through tsx, as the built bin would run) to its end. */
export function plantStore(args: string[], env: Record<string, string> = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', TSX, CLI, ...args],
      { env: { PATH: process.env.PATH, ...env }, timeout: 15_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : (error as { code?: unknown }).code;
        if (typeof code !== 'number') return reject(error);
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Starts `plant-store serve` on a free port; resolves once it listens. */
export async function startServer(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; port: number; output: () => string }> {
  const child = spawn(process.execPath, ['--import', TSX, CLI, 'serve'], {
    env: { PATH: process.env.PATH, PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk));
  for (let i = 0; i < 150; i++) {
    const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(text);
    if (match) return { child, port: Number(match[1]), output: () => text };
    if (child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  return expect.fail(`the server did not start: ${text}`);
}
