import { expect } from 'chai';
import { MemoryPlantStore } from '../../../../../src/adapters/storage/memory/memory-plant-store.js';
import {
  HEAP_CHECK_INTERVAL,
  oldGenerationLimit,
  v8SizeFlag,
} from '../../../../../src/adapters/storage/memory/heap-guard.js';
import { isPlantError } from '../../../../../src/domain/errors.js';

/** A heap whose use the test sets, counting readings. */
function fakeHeap(limit = 1000) {
  const heap = { used: 0, readings: 0 };
  const statistics = () => {
    heap.readings++;
    return { used_heap_size: heap.used, heap_size_limit: limit };
  };
  return { heap, statistics };
}

const code = (promise: Promise<unknown>) =>
  promise.then(
    () => 'stored',
    (error: unknown) => (isPlantError(error) ? error.code : Promise.reject(error)),
  );

describe('the memory store heap guard (injected heap statistics)', () => {
  it('when the used heap passes the configured percent, then creates are refused with storage-refuses-writes and ping says so', async () => {
    const { heap, statistics } = fakeHeap();
    const store = new MemoryPlantStore({ heapLimitPercent: 80, heapStatistics: statistics });
    expect(await code(store.insert('t', { id: 1n, name: 'a' }))).to.equal('stored');

    heap.used = 800;
    await store.ping().then(
      () => expect.fail('ping resolved'),
      (error: unknown) =>
        expect((error as { code: string }).code).to.equal('storage-refuses-writes'),
    );
    expect(await code(store.insert('t', { id: 2n, name: 'b' }))).to.equal('storage-refuses-writes');
    expect(await store.list('t', undefined, 10)).to.deep.equal([{ id: 1n, name: 'a' }]);
    expect(await store.delete('t', 1n)).to.equal(true);
  });

  it('when inserts follow one another, then the heap is read once per interval, never per insert', async () => {
    const { heap, statistics } = fakeHeap();
    const store = new MemoryPlantStore({ heapStatistics: statistics });

    for (let i = 0; i < HEAP_CHECK_INTERVAL * 10; i++)
      await store.insert('t', { id: BigInt(i), name: 'p' });

    expect(heap.readings).to.equal(10);
  });

  it('when the heap frees up after refusals, then creates are accepted again within one interval', async () => {
    const { heap, statistics } = fakeHeap();
    heap.used = 990;
    const store = new MemoryPlantStore({ heapStatistics: statistics });
    expect(await code(store.insert('t', { id: 1n, name: 'a' }))).to.equal('storage-refuses-writes');

    heap.used = 100;
    const outcomes: string[] = [];
    for (let i = 0; i < HEAP_CHECK_INTERVAL; i++) {
      outcomes.push(await code(store.insert('t', { id: BigInt(i), name: 'a' })));
    }

    expect(outcomes.at(-1)).to.equal('stored');
    await store.ping();
  });
});

describe('the old generation limit the heap guard measures against', () => {
  const MIB = 1024 * 1024;
  const flags =
    (given: Record<string, number>) =>
    (name: string): number | undefined =>
      given[name];

  it('when --max-old-space-size is given, on the command line or in NODE_OPTIONS, then the last one counts', () => {
    expect(v8SizeFlag('max-old-space-size', ['--max-old-space-size=40'], '')).to.equal(40);
    expect(v8SizeFlag('max-old-space-size', [], '--inspect --max_old_space_size=512')).to.equal(
      512,
    );
    expect(
      v8SizeFlag('max-old-space-size', ['--max-old-space-size=64'], '--max-old-space-size=32'),
    ).to.equal(64);
    expect(v8SizeFlag('max-old-space-size', ['--max-semi-space-size=8'], '')).to.equal(undefined);
    expect(v8SizeFlag('max-old-space-size', ['--max-old-space-size=x'], '')).to.equal(undefined);
  });

  it('when the old space size was given, then it is the limit, whatever the young generation', () => {
    // Node 24 with --max-old-space-size=40: 40 MiB and three 64 MiB young spaces.
    expect(oldGenerationLimit(232 * MIB, 13, flags({ 'max-old-space-size': 40 }))).to.equal(
      40 * MIB,
    );
    expect(oldGenerationLimit(88 * MIB, 11, flags({ 'max-old-space-size': 40 }))).to.equal(
      40 * MIB,
    );
  });

  it("when no size was given, then the version's young generation is taken off the heap limit", () => {
    expect(oldGenerationLimit(4144 * MIB, 11, flags({}))).to.equal(4096 * MIB);
    expect(oldGenerationLimit(4288 * MIB, 13, flags({}))).to.equal(4096 * MIB);
    expect(oldGenerationLimit(4288 * MIB, 13, flags({ 'max-semi-space-size': 8 }))).to.equal(
      4264 * MIB,
    );
    // Never less than a quarter of the heap, whatever the estimate.
    expect(oldGenerationLimit(200 * MIB, 13, flags({}))).to.equal(50 * MIB);
  });
});
