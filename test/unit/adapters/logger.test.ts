import { spawnSync } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { expect } from 'chai';

const LOGGER = new URL('../../../src/adapters/logger.ts', import.meta.url).href;

/**
 * Runs `body` in a child process with `logger = createLogger('info')`; resolves its stdout, or
 * its stderr when `stdout` is given (a file descriptor it writes to instead of a pipe).
 */
function run(body: string, stdout?: number): string {
  const program = `
    import { writeSync } from 'node:fs';
    import { createLogger } from ${JSON.stringify(LOGGER)};
    const logger = createLogger('info');
    ${body}`;
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', program],
    {
      encoding: 'utf8',
      timeout: 20_000,
      ...(stdout !== undefined && { stdio: ['ignore', stdout, 'pipe'] }),
    },
  );
  expect(child.status, `${child.error?.message ?? ''} ${child.stderr}`).to.equal(0);
  return stdout === undefined ? child.stdout : child.stderr;
}

describe('createLogger', () => {
  it('when a line is logged, then it is pino JSON with the service name, and Authorization is redacted', () => {
    const stdout = run(`
      logger.info({ req: { headers: { authorization: 'Bearer secret' } }, requestId: 'r1' }, 'request');
      process.exit(0);`);

    const line = JSON.parse(stdout) as Record<string, unknown>;
    expect(line).to.include({ level: 30, service: 'plant-store', requestId: 'r1', msg: 'request' });
    expect(stdout).not.to.include('secret');
  });

  it('when the process exits at once (process.exit) after several lines, then every line is still written', () => {
    const stdout = run(`
      for (let i = 0; i < 3; i++) logger.info({ i }, 'request');
      process.exit(0);`);

    expect(
      stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { i: number }).i),
    ).to.deep.equal([0, 1, 2]);
  });

  it('when a line waits in the buffer, then it is written within a short period, without more lines or an exit', () => {
    // The marker is written straight to stdout 300 ms later: the held line must come before it.
    const stdout = run(`
      logger.info({ held: true }, 'request');
      setTimeout(() => { writeSync(1, 'marker\\n'); process.exit(0); }, 300);`);

    expect(stdout.trim().split('\n')).to.have.length(2);
    expect(stdout.trim().split('\n')[1]).to.equal('marker');
  });

  describe('when stdout takes no writes (/dev/full: every write fails with ENOSPC)', () => {
    let full: number;
    before(() => {
      full = openSync('/dev/full', 'w');
    });
    after(() => closeSync(full));

    it('then the process goes on running after its lines fail to be written', () => {
      // 2 MB of lines over 300 ms: the writes fail, the held lines are bounded, the timer still runs.
      const stderr = run(
        `
        const timer = setInterval(() => {
          for (let i = 0; i < 100; i++) logger.info({ i, pad: 'x'.repeat(200) }, 'request');
        }, 3);
        setTimeout(() => { clearInterval(timer); console.error('still running'); process.exit(0); }, 300);`,
        full,
      );

      expect(stderr).to.include('still running');
    });

    it('then the process exits at once (process.exit) with lines still held', () => {
      const started = Date.now();
      run(
        `
        logger.info('written before');
        setTimeout(() => { logger.info('held'); process.exit(0); }, 100);`,
        full,
      );

      expect(Date.now() - started).to.be.below(15_000);
    });
  });
});
