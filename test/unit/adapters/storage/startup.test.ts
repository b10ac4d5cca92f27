import { expect } from 'chai';
import { PlantError } from '../../../../src/domain/errors.js';
import type { Logger } from '../../../../src/ports/logger.js';
import type { Storage } from '../../../../src/ports/storage.js';
import { StartingStorage } from '../../../../src/adapters/storage/starting-storage.js';
import { StorageNotReady, waitForStorage } from '../../../../src/adapters/storage/startup.js';
import { StorageOpenError } from '../../../../src/adapters/storage/storage-open-error.js';
import { MemoryPlantStore } from '../../../../src/adapters/storage/memory/memory-plant-store.js';
import { MemoryTokenStore } from '../../../../src/adapters/storage/memory/memory-token-store.js';
import { rejection } from '../../../support/rejection.js';

/** A logger that keeps its warnings' messages. */
function recordingLogger(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const ignore = () => {};
  const logger = { warn: (_: unknown, message: string) => warnings.push(message) };
  return { logger: { ...logger, info: ignore, error: ignore, debug: ignore } as never, warnings };
}

const at = { where: 'Store at here:1', variable: 'STORE_URL' };

describe('waitForStorage', () => {
  it('when attempts are not ready a few times, then it retries until one opens and logs each reason once', async () => {
    const { logger, warnings } = recordingLogger();
    const reasons = ['connection refused', 'connection refused', 'timed out'];

    const opened = await waitForStorage(
      async () => {
        const reason = reasons.shift();
        if (reason !== undefined) throw new StorageNotReady(reason);
        return 'open';
      },
      { ...at, timeoutMs: 5000, logger },
    );

    expect(opened).to.equal('open');
    expect(warnings).to.deep.equal([
      'waiting for Store at here:1: connection refused',
      'waiting for Store at here:1: timed out',
    ]);
  });

  it('when an attempt fails with another error, then it rejects at once without retrying', async () => {
    let attempts = 0;
    const final = new StorageOpenError(at.where, at.variable, 'refused authentication');

    const error = await rejection(
      waitForStorage(
        async () => {
          attempts++;
          throw final;
        },
        { ...at, timeoutMs: 5000 },
      ),
    );

    expect(error).to.equal(final);
    expect(attempts).to.equal(1);
  });

  it('when the store is never ready, then it rejects after the bound with the last reason in one line', async () => {
    const started = Date.now();

    const error = await rejection(
      waitForStorage(
        async () => {
          throw new StorageNotReady('connection refused');
        },
        { ...at, timeoutMs: 300 },
      ),
      StorageOpenError,
    );

    expect(Date.now() - started).to.be.within(300, 1500);
    expect(error.message).to.equal(
      'Store at here:1 (STORE_URL) is not ready after 0.3 s (connection refused)',
    );
  });
});

describe('StartingStorage', () => {
  it('when the storage is still opening, then its stores reject storage-unavailable; once open, they serve', async () => {
    let finish: (storage: Storage) => void = () => {};
    const real: Storage = {
      plants: new MemoryPlantStore(),
      tokens: new MemoryTokenStore(),
      close: async () => {},
    };
    const storage = new StartingStorage(() => new Promise((resolve) => (finish = resolve)));

    const early = await rejection(storage.plants.ping(), PlantError);
    expect(early.code).to.equal('storage-unavailable');
    finish(real);
    await storage.opened;

    expect(await storage.plants.insert('t', { id: 1n, name: 'a' })).to.equal(true);
    expect(await storage.tokens.list()).to.deep.equal([]);
  });

  it('when it is closed while opening, then the wait is aborted', async () => {
    let signal: AbortSignal | undefined;
    const storage = new StartingStorage(
      (given: AbortSignal) =>
        new Promise((_, reject) => {
          signal = given;
          given.addEventListener('abort', () => reject(given.reason));
        }),
    );

    await storage.close();

    expect(signal?.aborted).to.equal(true);
    await rejection(storage.opened);
  });
});
