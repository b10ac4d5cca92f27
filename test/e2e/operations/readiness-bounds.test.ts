import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { startService, type ServiceProcess } from '../../support/service-process.js';

const MIB = 1024 * 1024;
// Longer than the readiness interval (1 s), so that each round asks the stores again.
const ROUND_GAP_MS = 1200;

/** Bytes the process has read through read(2) and the like so far (files and sockets alike). */
const bytesRead = (pid: number): number =>
  Number(/^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))![1]);

/** `count` concurrent GET /readyz; each answer's status, body and time. */
async function readyz(service: ServiceProcess, count: number) {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const started = performance.now();
      const response = await fetch(`http://127.0.0.1:${service.port}/readyz`);
      const body = (await response.json()) as Record<string, unknown>;
      return { status: response.status, body, ms: performance.now() - started };
    }),
  );
}

describe('Readiness against a broken token file (memory storage)', function () {
  this.timeout(60_000);
  let directory: string;
  let service: ServiceProcess | undefined;
  const tokenFile = () => join(directory, 'tokens.json');

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'plant-store-readiness-'));
  });
  afterEach(async () => {
    await service?.stop();
    service = undefined;
    rmSync(directory, { recursive: true, force: true });
  });

  const start = async () => {
    service = await startService({ PLANT_STORE_TOKEN_FILE: tokenFile() });
    return service;
  };

  /** Every answer is the token store's 503, within `ms`. */
  const expectRefused = (answers: Awaited<ReturnType<typeof readyz>>, ms: number) => {
    for (const answer of answers) {
      expect(answer.status).to.equal(503);
      expect(answer.body).to.deep.include({ error: 50301, failing: ['tokens'] });
      expect(answer.ms).to.be.below(ms);
    }
  };

  it('when the token file is larger than 16 MiB (50 MB), then /readyz answers 503 at once and never reads it', async () => {
    writeFileSync(tokenFile(), `{"version":1,"tokens":[${' '.repeat(50_000_000)}`, { mode: 0o600 });
    const server = await start();
    const before = bytesRead(server.pid);

    for (let round = 0; round < 3; round++) {
      if (round > 0) await sleep(ROUND_GAP_MS);
      expectRefused(await readyz(server, 10), 1000);
    }

    expect(bytesRead(server.pid) - before, 'bytes read by the server').to.be.below(MIB);
  });

  it('when the token file is a symlink to /dev/zero, then /readyz answers 503 at once and reads nothing of it', async () => {
    symlinkSync('/dev/zero', tokenFile());
    const server = await start();
    const before = bytesRead(server.pid);

    expectRefused(await readyz(server, 10), 1000);
    await sleep(ROUND_GAP_MS);
    expectRefused(await readyz(server, 10), 1000);

    expect(bytesRead(server.pid) - before, 'bytes read by the server').to.be.below(MIB);
  });

  it('when the token file is a FIFO no one writes to, then /readyz answers 503 at once', async () => {
    execFileSync('mkfifo', ['-m', '600', tokenFile()]);
    const server = await start();

    expectRefused(await readyz(server, 10), 1000);
  });

  it('when an invalid 8 MiB token file is unchanged, then concurrent and later /readyz calls share one read of it', async () => {
    writeFileSync(tokenFile(), `{"version":1,"tokens":[${' '.repeat(8 * MIB)}`, { mode: 0o600 });
    const server = await start();
    const before = bytesRead(server.pid);

    expectRefused(await readyz(server, 10), 2000);
    const first = bytesRead(server.pid);
    for (let round = 0; round < 2; round++) {
      await sleep(ROUND_GAP_MS);
      expectRefused(await readyz(server, 10), 1000);
    }

    expect(first - before, 'bytes read by 10 concurrent calls').to.be.below(2 * 8 * MIB);
    expect(bytesRead(server.pid) - first, 'bytes read by later calls').to.be.below(MIB);
  });
});
