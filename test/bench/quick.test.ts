import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { expect } from 'chai';

const ROOT = new URL('../..', import.meta.url).pathname;

// The benchmark is not part of the tests, but its --quick mode is, so that it cannot rot: every
// server must start, answer under load and stop, and the output must keep its shape. Speed is never
// asserted here (the machine may be busy); only structure.
describe('bench --quick', function () {
  this.timeout(120_000);
  let code: number | null;
  let stdout = '';
  let stderr = '';

  before(async () => {
    const build = spawnSync(
      process.execPath,
      ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    expect(build.status, build.stdout + build.stderr).to.equal(0);
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--quick'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    [code] = (await once(child, 'exit')) as [number | null];
  });

  it('when run, then it exits 0 and says whether it pinned the processes', () => {
    expect(code, stdout + stderr).to.equal(0);
    expect(stdout).to.match(/^pinned: (yes|no)/m);
  });

  it('when run, then every server has a GET and a POST row with figures', () => {
    for (const server of ['service', 'bare Koa', 'node:http', 'Fastify']) {
      for (const workload of ['GET', 'POST']) {
        const row = new RegExp(`^${server} +${workload} +(\\d+) +[\\d.]+ +[\\d.]+ +(\\d+|-) `, 'm');
        const match = row.exec(stdout);
        expect(match, `${server} ${workload} in:\n${stdout}`).to.not.equal(null);
        expect(Number(match![1])).to.be.greaterThan(0);
      }
    }
  });

  it('when run, then it prints the ratios against each reference and the scaling table', () => {
    for (const workload of ['GET', 'POST']) {
      for (const reference of ['bare Koa', 'node:http', 'Fastify']) {
        expect(stdout).to.match(
          new RegExp(
            `^  ${workload} +service/${reference} +[\\d.]+ / [\\d.]+ / [\\d.]+ +per CPU-s [\\d.-]+ / [\\d.-]+ / [\\d.-]+$`,
            'm',
          ),
        );
      }
    }
    expect(stdout).to.match(/^memory +1000 +\d+ /m);
  });

  it('when run, then the last line is the one scripts read', () => {
    const lines = stdout.trimEnd().split('\n');
    expect(lines.at(-1)).to.match(
      /^bench: GET \d+\.\d\d POST \d+\.\d\d \(service\/bare Koa, median of 1 rounds\)$/,
    );
  });
});
