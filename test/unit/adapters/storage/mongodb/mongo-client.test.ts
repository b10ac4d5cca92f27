import { expect } from 'chai';
import { MongoServerError } from 'mongodb';
import { isOutage, isRefusal } from '../../../../../src/adapters/storage/mongodb/mongo-client.js';

const mongoError = (code: number, errmsg: string) => new MongoServerError({ code, errmsg, ok: 0 });

describe('errors that mean "the store takes no writes" (503 50303), MongoDB', () => {
  it('when MongoDB is out of disk, over its space quota or read-only, then it is a refusal, not an outage', () => {
    for (const error of [
      mongoError(14031, 'Not enough disk space'),
      mongoError(8000, 'you are over your space quota, using 513 MB of 512 MB'),
      mongoError(20, 'Cannot execute a write operation in read-only mode'),
      mongoError(1, 'sqlite: attempt to write a readonly database'),
      mongoError(1, 'write failed: no space left on device'),
    ]) {
      expect(isRefusal(error), error.message).to.equal(true);
      expect(isOutage(error), error.message).to.equal(false);
    }
  });

  it('when MongoDB fails over (not writable primary) or rejects a duplicate, then it is not a refusal', () => {
    expect(isRefusal(mongoError(10107, 'not primary'))).to.equal(false);
    expect(isOutage(mongoError(10107, 'not primary'))).to.equal(true);
    expect(isRefusal(mongoError(11000, 'E11000 duplicate key'))).to.equal(false);
  });
});
