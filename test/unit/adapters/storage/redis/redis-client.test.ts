import { expect } from 'chai';
import {
  isRefusalError,
  isUnavailableError,
} from '../../../../../src/adapters/storage/redis/redis-client.js';

describe('errors that mean "the store takes no writes" (503 50303), Redis', () => {
  it('when Redis answers OOM, MISCONF or NOREPLICAS, then it is a refusal; READONLY (a failover) is an outage', () => {
    for (const message of [
      "OOM command not allowed when used memory > 'maxmemory'.",
      'MISCONF Redis is configured to save RDB snapshots, but it is currently not able to persist on disk.',
      'NOREPLICAS Not enough good replicas to write.',
    ]) {
      expect(isRefusalError(new Error(message)), message).to.equal(true);
      expect(isUnavailableError(new Error(message)), message).to.equal(false);
    }
    expect(
      isRefusalError(new Error("READONLY You can't write against a read only replica.")),
    ).to.equal(false);
    expect(
      isUnavailableError(new Error("READONLY You can't write against a read only replica.")),
    ).to.equal(true);
  });
});
