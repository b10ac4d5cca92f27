import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { NEST_BUILD } from './peers.js';
import { onServerCore, pinning, ROOT, startLoader } from './proc.js';
import { parseRunOptions } from './run-options.js';
import { BenchRunner, type LatencyRow, type ScaleRow, type TagRow } from './run-measure.js';
import { planRun, scaleTargets } from './run-plan.js';
import { RunReport } from './run-report.js';
import { benchStores, type BenchStore } from './stores.js';

// `npm run bench`: the service against bare Koa, bare node:http and Fastify, and against the peers a
// team would otherwise build (NestJS on Express and on Fastify, Fastify with the same features),
// interleaved in rounds, each server in its own process and autocannon in another; then latency at
// a fixed rate, and list latency and memory as the memory store grows. See bench/README.md.
// What a run is: run-plan.ts; how it runs: run-measure.ts; how it reports: run-report.ts.

const options = parseRunOptions(process.argv.slice(2));
const loader = startLoader();
// `--observe`'s OTLP collector: it only answers 200.
const collector = createServer((request, response) => {
  request.resume();
  request.on('end', () =>
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
  );
});
let stores: BenchStore[] = [];

async function main(): Promise<void> {
  if (!existsSync(`${ROOT}dist/cli.js`))
    throw new Error('dist/cli.js is missing: run `npm run build` first (npm run bench does)');
  if (!existsSync(`${ROOT}${NEST_BUILD}/main-express.js`))
    throw new Error(
      `${NEST_BUILD} is missing: run \`npm run bench:peers\` first (npm run bench does)`,
    );
  await loader.ready;
  const started = Date.now();

  // A store server the run starts shares the servers' core, never the load generator's (where it
  // would slow autocannon unaccounted); FerretDB only on request (`--ferretdb`).
  const storeNotes: string[] = [];
  stores = await benchStores(onServerCore, options.skipStores, {
    ferretdb: options.ferretdb,
    notes: storeNotes,
  });
  let collectorPort: number | undefined;
  if (options.observe) {
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    collectorPort = (collector.address() as { port: number }).port;
  }
  const plan = planRun(options, stores, collectorPort);
  const runner = new BenchRunner(plan, options.settings, loader.ask);
  const report = new RunReport(options, plan, runner);
  report.header(storeNotes);
  if (pinning) spawnSync('taskset', ['-a', '-pc', pinning.load, String(process.pid)]);

  for (let round = 1; round <= options.settings.rounds; round++) await runner.measureRound(round);
  // Each store server stops once nothing needs it: after the rounds, or after its own scaling and
  // tags scenario.
  const targets = scaleTargets(plan, options).filter(
    (target) => options.scaling || (options.tags && target.tags),
  );
  const scaled = targets.map((target) => target.name);
  await Promise.all(stores.filter((store) => !scaled.includes(store.kind)).map((s) => s.stop()));
  report.roundsTable();
  report.ratiosSection();
  report.peersSection();

  const scaleRows: ScaleRow[] = [];
  const tagRows: TagRow[] = [];
  for (const target of targets) {
    // A store that cannot even start here (FerretDB still busy with the rounds' backlog) is a
    // problem of the run, printed with the rest, not the end of it: the other rows still count.
    const store = stores.find((candidate) => candidate.kind === target.name);
    const attempt = async <T>(what: string, measure: () => Promise<T[]>): Promise<T[]> => {
      try {
        return await measure();
      } catch (error) {
        const reason =
          error instanceof Error
            ? error.message.split('\n').slice(0, 6).join(' | ')
            : String(error);
        runner.report(store, `${what} ${target.name}: ${reason}`);
        return [];
      }
    };
    if (options.scaling) {
      scaleRows.push(...(await attempt('scaling', () => runner.measureScale(target))));
    }
    if (options.tags && target.tags) {
      tagRows.push(...(await attempt('tags', () => runner.measureTags(target))));
    }
    await store?.stop();
  }
  if (options.scaling) report.scalingSection(scaleRows);
  if (options.tags) report.tagsSection(tagRows);

  // Latency at a fixed rate that every server sustains; stores have stopped by now.
  const rates = report.latencyRates();
  const latencyRows: LatencyRow[] = options.latency ? await runner.measureLatency(rates) : [];
  report.latencySection(rates, latencyRows);
  report.conclude({ scaleRows, tagRows, latencyRows, rates, elapsedMs: Date.now() - started });
}

main()
  .catch((error: unknown) => {
    console.error(`bench: failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  })
  .finally(async () => {
    loader.stop();
    collector.close();
    await Promise.all(stores.map((store) => store.stop()));
  });
