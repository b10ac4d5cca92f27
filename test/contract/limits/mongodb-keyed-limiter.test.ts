import { randomUUID } from 'node:crypto';
import FakeTimers from '@sinonjs/fake-timers';
import { expect } from 'chai';
import { KeyedLimiter } from '../../../src/adapters/limits/keyed-limiter.js';
import type { OpenedStorage } from '../../../src/adapters/limits/limiter-store.js';
import { openMongoStorage } from '../../../src/adapters/storage/mongodb/open-mongo-storage.js';
import { startMongoServer } from '../../support/mongo-server.js';
import { suiteServer } from '../../support/server-requirement.js';
import { describeKeyedLimiter } from './keyed-limiter-contract.js';

const POINTS = 3;
const CALLS = 24;

describe('MongoDB', () => {
  const mongo = suiteServer('MongoDB', startMongoServer, (server) => server.dispose());
  describeKeyedLimiter('MongoDB', () => openMongoStorage({ url: mongo().url }));

  describe('KeyedLimiter on MongoDB under concurrent calls', () => {
    let storage: OpenedStorage;
    before(async () => {
      storage = await openMongoStorage({ url: mongo().url });
    });
    after(() => storage?.close());

    // FerretDB v1 applies an update as a read and a write with nothing between: counts kept
    // with $inc were lost, and a limit of 10 let up to 68 a second through.
    it('when two processes consume one key 24 times at once, then no window admits more than its points', async () => {
      let fallbacks = 0;
      const watch = { fallback: () => void fallbacks++, recovered: () => {} };
      const limiters = [0, 1].map(
        () =>
          new KeyedLimiter({ name: 'race', points: POINTS, store: storage.limiterStore, watch }),
      );
      const key = `k-${randomUUID()}`;
      // Start at a window's beginning, so that the calls most likely share one: the limiters
      // number windows by this process's Date, set there (and running on) rather than waited for.
      const clock = FakeTimers.install({
        now: Math.ceil(Date.now() / 1000) * 1000,
        toFake: ['Date'],
        shouldAdvanceTime: true,
      });
      let answers: number[];
      let windows: number;
      try {
        const started = Date.now();
        answers = await Promise.all(
          Array.from({ length: CALLS }, (_, i) => limiters[i % 2]!.consume(key)),
        );
        windows = Math.floor(Date.now() / 1000) - Math.floor(started / 1000) + 1;
      } finally {
        clock.uninstall();
      }

      const admitted = answers.filter((ms) => ms === 0).length;
      // A decision the store did not make in time is made in process, which may admit it.
      expect(admitted).to.be.at.least(POINTS);
      expect(admitted).to.be.at.most(POINTS * windows + fallbacks);
    });
  });
});
