import { expect } from 'chai';
import {
  DEFAULT_RETRY_SCHEDULE,
  failedTooLong,
  retryDelay,
} from '../../../src/domain/retry-schedule.js';

describe('the webhook retry schedule', () => {
  it('when the schedule is read, then delays follow it with at most the jitter, the last one repeating', () => {
    const schedule = { delaysMs: [1000, 60_000], jitter: 0.2, disableAfterMs: 3_600_000 };
    expect(retryDelay(schedule, 1, () => 0.5)).to.equal(1000);
    expect(retryDelay(schedule, 1, () => 0)).to.equal(800);
    expect(retryDelay(schedule, 1, () => 1)).to.equal(1200);
    expect(retryDelay(schedule, 9, () => 0.5)).to.equal(60_000);
    // The documented default: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (27 h 35 min 5 s in all).
    expect(DEFAULT_RETRY_SCHEDULE.delaysMs.reduce((a, b) => a + b)).to.equal(99_305_000);
    expect(failedTooLong(schedule, new Date(0), new Date(3_600_000))).to.equal(true);
    expect(failedTooLong(schedule, new Date(0), new Date(3_599_999))).to.equal(false);
  });
});
