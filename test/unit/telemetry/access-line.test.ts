import { spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { accessLineWriter, createLogger, type AccessFields } from '../../../src/adapters/logger.js';
import type { Logger } from '../../../src/ports/logger.js';

/** A logger of createLogger writing into `chunks`, as it would to stdout. */
function capture(): { logger: Logger; chunks: string[] } {
  const chunks: string[] = [];
  return { logger: createLogger('info', { write: (text: string) => chunks.push(text) }), chunks };
}
/** Longer than the writer holds lines (10 ms). */
const held = () => sleep(30);
const withoutTime = (line: string): string => line.replace(/"time":\d+/g, '"time":0');

const CASES: AccessFields[] = [
  {
    requestId: '3b0f0a8e-56b4-4a63-9c57-4c1e5a1d2e6f',
    method: 'GET',
    route: '/plants',
    status: 200,
    durationMs: 0.734,
    size: 523,
    tenant: 'acme',
    error: undefined,
  },
  {
    requestId: 'req.1:2_3-4',
    method: 'DELETE',
    route: '/plants/:id',
    status: 404,
    durationMs: 12,
    size: 61,
    tenant: 'quote " backslash \\ tab \t é 🌱',
    error: 40401,
  },
  {
    requestId: 'x',
    method: 'PUT',
    route: undefined,
    status: 405,
    durationMs: 1e-3,
    size: 0,
    tenant: undefined,
    error: 40501,
  },
];

describe('Access lines of the service logger', () => {
  it('when written by the access log, then each line is exactly the line pino writes for info(fields, "request"), time aside', async () => {
    const { logger, chunks } = capture();
    for (const fields of CASES) logger.info(fields, 'request');
    const byPino = chunks.splice(0).join('');

    const write = accessLineWriter(logger);
    for (const fields of CASES) write(fields);
    await held();

    expect(withoutTime(chunks.join(''))).to.equal(withoutTime(byPino));
    const parsed = chunks
      .join('')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(parsed.map((line) => line.tenant)).to.deep.equal(CASES.map((c) => c.tenant));
    expect(parsed.every((line) => Math.abs(line.time - Date.now()) < 60_000)).to.equal(true);
  });

  it('when several requests end within a few milliseconds, then their lines leave together in one write, shortly after', async () => {
    const { logger, chunks } = capture();
    const write = accessLineWriter(logger);

    write(CASES[0]!);
    write(CASES[1]!);
    const before = chunks.length;
    await held();

    expect(before).to.equal(0);
    expect(chunks).to.have.length(1);
    expect(chunks[0]!.split('\n')).to.have.length(3);
  });

  it('when the process exits at once (process.exit) after a request, then its held line is still written to stdout', () => {
    const logger = new URL('../../../src/adapters/logger.ts', import.meta.url).href;
    const program = `
      import { accessLineWriter, createLogger } from ${JSON.stringify(logger)};
      accessLineWriter(createLogger('info'))(${JSON.stringify(CASES[0])});
      process.exit(0);`;

    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', program],
      { encoding: 'utf8', timeout: 20_000 },
    );

    expect(run.status, run.stderr).to.equal(0);
    expect(JSON.parse(run.stdout)).to.deep.include({
      requestId: CASES[0]!.requestId,
      msg: 'request',
    });
  });

  it('when the logger is not one of createLogger (a host logger), then lines go through its info()', () => {
    const seen: { fields: object; message?: string | undefined }[] = [];
    const host: Logger = {
      debug: () => {},
      info: (fields, message) => seen.push({ fields, message }),
      warn: () => {},
      error: () => {},
    };

    accessLineWriter(host)(CASES[2]!);

    expect(seen).to.deep.equal([{ fields: CASES[2], message: 'request' }]);
  });
});
