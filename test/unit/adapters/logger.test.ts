import { spawnSync } from 'node:child_process';
import { expect } from 'chai';

const LOGGER = new URL('../../../src/adapters/logger.ts', import.meta.url).href;

/** Runs `body` in a child process with `logger = createLogger('info')`; resolves its stdout. */
function run(body: string): string {
  const program = `
    import { writeSync } from 'node:fs';
    import { createLogger } from ${JSON.stringify(LOGGER)};
    const logger = createLogger('info');
    ${body}`;
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', program],
    { encoding: 'utf8', timeout: 20_000 },
  );
  expect(child.status, child.stderr).to.equal(0);
  return child.stdout;
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
});
