import { expect } from 'chai';
import type { RootDatabase } from 'lmdb';
import { LmdbWriter } from '../../../../../src/adapters/storage/lmdb/lmdb-writer.js';

/**
 * lmdb-js as node_modules/lmdb/write.js behaves: `transaction` resolves once its own batch is
 * committed (and, without overlappingSync, flushed by that commit), while `flushed` follows the
 * batch queued last, here one that failed for want of room (ENOSPC).
 */
function rootWhoseNextBatchFailed(): RootDatabase {
  const noRoom = Object.assign(new Error('Commit failed (see commitError for details)'), {
    commitError: Promise.reject(Object.assign(new Error('No space left on device'), { code: 28 })),
  });
  noRoom.commitError.catch(() => {});
  return {
    transaction: <T>(callback: () => T) => Promise.resolve(callback()),
    // A thenable, as lmdb-js's `flushed` is: each `then` follows the batch queued last.
    flushed: {
      then: (fulfilled?: () => unknown, rejected?: (error: unknown) => unknown) =>
        Promise.reject(noRoom).then(fulfilled, rejected),
    },
  } as unknown as RootDatabase;
}

describe('the embedded store (lmdb) writer', () => {
  it('when its own commit succeeded and the batch after it met a full disk, then the write resolves (it was answered "nothing was written")', async () => {
    const writer = new LmdbWriter(rootWhoseNextBatchFailed());

    expect(await writer.write(() => 'stored')).to.equal('stored');
  });

  it('when its own commit failed for want of room, then it is refused: nothing was written', async () => {
    const root = {
      transaction: () =>
        Promise.reject(
          Object.assign(new Error('Commit failed'), {
            commitError: Promise.reject(Object.assign(new Error('MDB_MAP_FULL'), { code: -30792 })),
          }),
        ),
    } as unknown as RootDatabase;

    const error = await new LmdbWriter(root)
      .write(() => 1)
      .then(
        () => undefined,
        (found: unknown) => found,
      );
    expect(error).to.include({ code: 'storage-refuses-writes' });
  });
});
