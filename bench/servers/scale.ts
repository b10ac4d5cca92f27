import { once } from 'node:events';
import { readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as ConfigModule from '../../src/config/index.js';
import type * as CompositionModule from '../../src/composition/container.js';
import { FILTER_TAG, listeningLine, plantName, plantTag } from '../common.js';

// The scaling harness: the real service, built from dist/ exactly as src/main.ts wires it, with a
// store filled straight through the PlantStore port before the port opens (a million plants over
// HTTP would take minutes). Reads BENCH_STORAGE (a StorageOptions as JSON), BENCH_PLANTS,
// BENCH_TAG_EVERY (every N-th id tagged FILTER_TAG, for the tags scenario; 0 for none), and the
// service's own variables (PLANT_STORE_TOKENS, PORT). Run with --expose-gc so RSS is measured
// after a full collection. Prints one `bench-scale: {...}` line, then the usual listening line.

const dist = (path: string) =>
  pathToFileURL(new URL(`../../dist/${path}`, import.meta.url).pathname).href;
const { loadConfig } = (await import(dist('config/index.js'))) as typeof ConfigModule;
const { buildService } = (await import(
  dist('composition/container.js')
)) as typeof CompositionModule;

const storage = JSON.parse(
  process.env.BENCH_STORAGE ?? '{"kind":"memory"}',
) as ConfigModule.StorageOptions;
const count = Number(process.env.BENCH_PLANTS ?? '1000');
const tagEvery = Number(process.env.BENCH_TAG_EVERY ?? '0');
const config = { ...loadConfig(process.env), storage };
const tenant = config.staticTokens[0]?.tenant ?? 'bench';

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const settledRss = () => {
  gc();
  gc();
  return process.memoryUsage().rss;
};

const { plantStore: store, app } = await buildService(config);
const rssBefore = settledRss();

const plant = (id: number) => ({
  id: BigInt(id),
  name: plantName(id),
  tag: tagEvery > 0 && id % tagEvery === 0 ? FILTER_TAG : plantTag(id),
});
const started = performance.now();
if (storage.kind === 'lmdb') {
  // The embedded store fills as `plant-store import` does: batches of 1000 in one durable write.
  for (let id = 1; id <= count; id += 1000) {
    const ids = Array.from({ length: Math.min(1000, count - id + 1) }, (_, i) => id + i);
    await store.importBatch(tenant, ids.map(plant), false);
  }
} else {
  const BATCH = storage.kind === 'memory' ? 1 : 200; // in flight at once, for stores behind a socket
  for (let id = 1; id <= count; id += BATCH) {
    const batch: Promise<boolean>[] = [];
    for (let i = id; i < id + BATCH && i <= count; i++) batch.push(store.insert(tenant, plant(i)));
    await Promise.all(batch);
  }
}
const seedMs = performance.now() - started;
const rssAfter = settledRss();
// The embedded store's files: the blocks they take on disk (LMDB's map may be sparse).
const diskBytes =
  storage.kind === 'lmdb'
    ? readdirSync(storage.dataDir).reduce(
        (sum, name) => sum + statSync(join(storage.dataDir, name)).blocks * 512,
        0,
      )
    : undefined;

console.error(
  `bench-scale: ${JSON.stringify({ storage: storage.kind, plants: count, rssBefore, rssAfter, seedMs: Math.round(seedMs), diskBytes })}`,
);

const server = createServer(app.callback());
server.listen(config.port, config.host);
await once(server, 'listening');
console.error(listeningLine(config.host, (server.address() as { port: number }).port));
process.on('SIGTERM', () => process.exit(0));
