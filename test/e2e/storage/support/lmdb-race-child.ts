// One process of the race: opens the store in argv[2], says `ready`, waits for a line on stdin,
// then sends argv[3] concurrent inserts of one id and as many units to one shared limit; prints
// what it got as JSON.
import { once } from 'node:events';
import { KeyedLimiter } from '../../../../src/adapters/limits/keyed-limiter.js';
import { openLmdbStorage } from '../../../../src/adapters/storage/lmdb/open-lmdb-storage.js';

const [dataDir, count] = process.argv.slice(2) as [string, string];
const storage = await openLmdbStorage({ dataDir });
const limiter = new KeyedLimiter({ name: 'race', points: 20, store: storage.limiterStore });
process.stdout.write('ready\n');
await once(process.stdin, 'data');
const attempts = Array.from({ length: Number(count) }, (_, i) =>
  storage.plants.insert('race', { id: 1n, name: `from ${process.pid} #${i}` }),
);
const units = Array.from({ length: Number(count) }, () => limiter.consume('shared'));
const stored = (await Promise.all(attempts)).filter(Boolean).length;
const admitted = (await Promise.all(units)).filter((wait) => wait === 0).length;
await storage.close();
process.stdout.write(`${JSON.stringify({ stored, admitted })}\n`);
process.stdin.destroy();
