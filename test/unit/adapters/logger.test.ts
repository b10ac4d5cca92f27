import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, createReadStream, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
      // Real timers in a real process: its event loop staying alive is the subject.
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
      // A line held 100 ms later in a real process, whose exit's flush is the subject.
      run(
        `
        logger.info('written before');
        setTimeout(() => { logger.info('held'); process.exit(0); }, 100);`,
        full,
      );

      expect(Date.now() - started).to.be.below(15_000);
    });
  });

  it('when the reader of stdout stops reading, then what is held is bounded, and the lines dropped are counted once it reads again', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'plant-store-logger-'));
    const fifo = join(directory, 'stdout');
    execFileSync('mkfifo', [fifo]);
    // Opened for reading and writing, so that neither end waits for the other; read only later.
    const pipe = openSync(fifo, 'r+');
    try {
      // 30 MB of lines at once: past the 16 MiB held while the pipe (64 KiB) is full.
      const program = `
        import { createLogger } from ${JSON.stringify(LOGGER)};
        const logger = createLogger('info');
        for (let i = 0; i < 120000; i++) logger.info({ i, pad: 'x'.repeat(200) }, 'request');
        console.error('logged');
        logger.flush(() => process.exit(0));`;
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', program],
        { stdio: ['ignore', pipe, 'pipe'] },
      );
      const exited = once(child, 'exit');
      const errors = child.stderr!;
      let stderr = '';
      errors.on('data', (chunk: Buffer) => (stderr += chunk));
      while (!stderr.includes('logged')) await once(errors, 'data');
      let stdout = '';
      const reader = createReadStream(fifo);
      reader.on('data', (chunk) => (stdout += chunk));
      await exited;
      // The pipe has no end while this process holds it open: read until the last line is in.
      // (Or until nothing comes for 2 s, so that a missing report fails below, not by timeout.)
      while (!stdout.endsWith('\n') || !stdout.includes('log lines dropped')) {
        const signal = AbortSignal.timeout(2000);
        if (
          !(await once(reader, 'data', { signal }).then(
            () => true,
            () => false,
          ))
        )
          break;
      }
      reader.destroy();

      const report = stdout.split('\n').find((line) => line.includes('log lines dropped'));
      expect(report, 'the report line').to.be.a('string');
      const { dropped } = JSON.parse(report!) as { dropped: number };
      const written = stdout.split('\n').filter((line) => line.includes('"msg":"request"'));
      expect(dropped + written.length).to.equal(120_000);
      expect(written.length).to.be.below(120_000 * 0.7);
    } finally {
      closeSync(pipe);
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
