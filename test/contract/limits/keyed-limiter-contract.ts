import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { KeyedLimiter } from '../../../src/adapters/limits/keyed-limiter.js';
import type { OpenedStorage } from '../../../src/adapters/limits/limiter-store.js';
import { eventually } from '../../support/raw-client.js';

const POINTS = 3;

/** The keyed limiter's contract on one store: `open` gives a storage that lends it, or none. */
export function describeKeyedLimiter(name: string, open: () => Promise<OpenedStorage | undefined>) {
  describe(`KeyedLimiter on ${name}`, () => {
    let storage: OpenedStorage | undefined;
    before(async () => {
      storage = await open();
    });
    after(() => storage?.close());
    const limiter = () =>
      new KeyedLimiter({ name: 'contract', points: POINTS, store: storage?.limiterStore });
    const key = () => `k-${randomUUID()}`;

    it('when a key uses its points, then the next is refused with the ms to wait, and this process knows without asking', async () => {
      const limits = limiter();
      const k = key();
      const admitted = [];
      for (let i = 0; i < POINTS; i++) admitted.push(await limits.consume(k));
      const refused = await limits.consume(k);

      expect(admitted).to.deep.equal([0, 0, 0]);
      expect(refused).to.be.within(1, 1000);
      expect(limits.refusedFor(k)).to.be.within(1, 1000);
      expect(limits.refusedFor(key())).to.equal(0);
    });

    it('when two limiters share the store, then they count one limit', async () => {
      const [one, two] = [limiter(), limiter()];
      const k = key();
      // Sent at once, so that one window of a second holds them all on a loaded machine.
      const answers = await Promise.all(
        Array.from({ length: POINTS * 2 }, (_, i) => (i % 2 ? one : two).consume(k)),
      );

      const admitted = answers.filter((ms) => ms === 0).length;
      expect(admitted).to.equal(storage?.limiterStore ? POINTS : POINTS * 2);
    });

    it('when a key is peeked at, then nothing is used up, and a used-up key is reported', async () => {
      const limits = limiter();
      const k = key();
      for (let i = 0; i < 5; i++) expect(await limits.peek(k)).to.equal(0);
      for (let i = 0; i < POINTS; i++) await limits.consume(k);

      // Another limiter asks the store; in process, only the same one knows.
      const reader = storage?.limiterStore ? limiter() : limits;
      expect(await reader.peek(k)).to.be.within(1, 1000);
    });

    it('when the window ends, then the key has its points again', async () => {
      const limits = limiter();
      const k = key();
      for (let i = 0; i <= POINTS; i++) await limits.consume(k);
      const refused = await limits.peek(k);
      // The window is the store's: Redis expires a count by its own clock, which fake timers
      // cannot move, so the end of the window (1 s at most) is polled for, on a deadline.
      await eventually(async () => (await limits.peek(k)) === 0, 3000, 'the window ends');

      expect(refused).to.be.within(1, 1000);
      expect(limits.refusedFor(k)).to.equal(0);
      expect(await limits.consume(k)).to.equal(0);
    });
  });
}
