// Creates plants in the store of argv[2] without end, 20 at a time, from id argv[3] (0 unless
// given), with durability argv[4] (flush unless given), printing each id once its create resolved
// (acknowledged); the test kills it with SIGKILL at some point.
import { openLmdbStorage } from '../../../../src/adapters/storage/lmdb/open-lmdb-storage.js';

const durability = process.argv[4] === 'commit-only' ? 'commit-only' : 'flush';
const storage = await openLmdbStorage({
  dataDir: process.argv[2]!,
  maxPlantsPerTenant: 0,
  durability,
});
for (let id = BigInt(process.argv[3] ?? 0); ; id += 20n) {
  await Promise.all(
    Array.from({ length: 20 }, async (_, i) => {
      const each = id + BigInt(i);
      const plant = { id: each, name: `plant ${each}` };
      if (await storage.plants.insert('killed', plant, { type: 'plant.created', plant })) {
        process.stdout.write(`${each}\n`);
      }
    }),
  );
}
