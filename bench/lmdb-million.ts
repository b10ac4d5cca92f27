// The embedded store with a million plants: bytes on disk, time to open, resident memory after
// opening (against an empty store), and a page's time at 1k and at 1M plants.
// Usage: node --import tsx bench/lmdb-million.ts [plants] [dir]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLmdbStorage } from '../src/adapters/storage/lmdb/open-lmdb-storage.js';

const PLANTS = Number(process.argv[2] ?? 1_000_000);
const base = process.argv[3] ?? mkdtempSync(join(tmpdir(), 'plant-store-million-'));
const BATCH = 1000;

/** Opens `dataDir` in a fresh process: ms to open, RSS (MiB) after, and a page's µs at `after` (mean of 1000). */
function openedElsewhere(dataDir: string, after: bigint): string {
  const script = `
    const { openLmdbStorage } = await import(${JSON.stringify(new URL('../src/adapters/storage/lmdb/open-lmdb-storage.ts', import.meta.url).pathname)});
    const started = performance.now();
    const s = await openLmdbStorage({ dataDir: ${JSON.stringify(dataDir)}, maxPlantsPerTenant: 0 });
    const openMs = performance.now() - started;
    globalThis.gc?.();
    const rss = process.memoryUsage().rss / 2 ** 20;
    await s.plants.list('t', ${after}n, 20);
    const t = performance.now();
    for (let i = 0; i < 1000; i++) await s.plants.list('t', ${after}n + BigInt(i), 20);
    const pageUs = (performance.now() - t);
    await s.close();
    console.log(JSON.stringify({ openMs: +openMs.toFixed(1), rssMiB: +rss.toFixed(1), pageUs: +pageUs.toFixed(1), rssAfterPagesMiB: +(process.memoryUsage().rss / 2 ** 20).toFixed(1) }));`;
  return execFileSync(
    process.execPath,
    ['--import', 'tsx', '--expose-gc', '--input-type=module', '-e', script],
    {
      encoding: 'utf8',
    },
  ).trim();
}

const empty = join(base, 'empty');
const full = join(base, 'full');
const small = join(base, 'small');
await (await openLmdbStorage({ dataDir: empty })).close();
const thousand = await openLmdbStorage({ dataDir: small });
await thousand.plants.importBatch(
  't',
  Array.from({ length: 1000 }, (_, i) => ({ id: BigInt(i), name: `plant ${i}` })),
  false,
);
await thousand.close();
const storage = await openLmdbStorage({ dataDir: full, maxPlantsPerTenant: 0 });
const started = performance.now();
for (let from = 0; from < PLANTS; from += BATCH) {
  const batch = Array.from({ length: Math.min(BATCH, PLANTS - from) }, (_, i) => ({
    id: BigInt(from + i),
    name: `plant ${from + i}`,
  }));
  await storage.plants.importBatch('t', batch, false);
}
const importS = (performance.now() - started) / 1000;
await storage.close();
const bytes = Number(
  execFileSync('du', ['-sb', join(full, 'plants.mdb')], { encoding: 'utf8' }).split('\t')[0],
);
console.log(`plants: ${PLANTS}, imported in ${importS.toFixed(1)} s (batches of ${BATCH})`);
console.log(
  `plants.mdb: ${(bytes / 2 ** 20).toFixed(1)} MiB, ${(bytes / PLANTS).toFixed(1)} bytes a plant`,
);
console.log(`empty store: ${openedElsewhere(empty, 0n)}`);
console.log(`1000 plants, page (20) in the middle: ${openedElsewhere(small, 500n)}`);
console.log(`${PLANTS} plants, page (20) near the start: ${openedElsewhere(full, 500n)}`);
console.log(
  `${PLANTS} plants, page (20) near the end: ${openedElsewhere(full, BigInt(PLANTS - 2000))}`,
);
if (process.argv[3] === undefined) rmSync(base, { recursive: true, force: true });
