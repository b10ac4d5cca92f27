import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { expect } from 'chai';
import { ensureBuilt, ROOT, runModule } from './support/built-dist.js';

const IMPORT_BOUND_MS = 300;
const HEAVY =
  /\/node_modules\/(?:koa|koa-[^/]+|@koa\/[^/]+|ioredis|mongodb|inversify|reflect-metadata|pino)\//;

/** Milliseconds one fresh process takes to import the file (the median of three processes). */
async function importTime(file: string): Promise<number> {
  const url = pathToFileURL(join(ROOT, file)).href;
  const source = `const start = performance.now(); await import(${JSON.stringify(url)}); console.log(performance.now() - start);`;
  const times: number[] = [];
  for (let i = 0; i < 3; i++) times.push(Number(await runModule(source)));
  return times.sort((a, b) => a - b)[1]!;
}

// Records every module the import resolves (ES modules through a resolve hook, CommonJS through
// require.cache), and whether a Reflect metadata polyfill was installed.
const RECORDER = (url: string) => `
import { register, createRequire } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const { port1, port2 } = new MessageChannel();
const resolved = [];
port1.on('message', (url) => resolved.push(url));
const hooks = 'let port; export function initialize(data) { port = data.port; }' +
  'export async function resolve(s, c, next) { const r = await next(s, c); port.postMessage(r.url); return r; }';
register('data:text/javascript,' + encodeURIComponent(hooks), { data: { port: port2 }, transferList: [port2] });
await import(${JSON.stringify(url)});
await new Promise((resolve) => setTimeout(resolve, 100));
port1.close();
const commonJs = Object.keys(createRequire(import.meta.url).cache);
console.log(JSON.stringify({ modules: [...resolved, ...commonJs], reflect: typeof Reflect.getMetadata }));
`;

describe('plant-store/core in a fresh process', function () {
  // The first run after a change builds dist/ (tens of seconds on a busy machine).
  this.timeout(180_000);
  before(ensureBuilt);

  it(`when dist/core.js is imported, then it takes under ${IMPORT_BOUND_MS} ms`, async () => {
    const core = await importTime('dist/core.js');
    const main = await importTime('dist/index.js');

    console.log(
      `      import time: plant-store/core ${core.toFixed(1)} ms, plant-store ${main.toFixed(1)} ms`,
    );
    expect(core).to.be.below(IMPORT_BOUND_MS);
  });

  it('when dist/core.js is imported, then no framework, driver or container is loaded and Reflect is untouched', async () => {
    const url = pathToFileURL(join(ROOT, 'dist/core.js')).href;
    const { modules, reflect } = JSON.parse(await runModule(RECORDER(url))) as {
      modules: string[];
      reflect: string;
    };

    expect(modules.some((m) => m.endsWith('/dist/core.js'))).to.equal(true);
    expect(modules.filter((m) => HEAVY.test(m))).to.deep.equal([]);
    expect(reflect).to.equal('undefined');
  });

  it('when dist/index.js is imported the same way, then the recorder does see Koa and Reflect metadata (so its silence about core means something)', async () => {
    const url = pathToFileURL(join(ROOT, 'dist/index.js')).href;
    const { modules, reflect } = JSON.parse(await runModule(RECORDER(url))) as {
      modules: string[];
      reflect: string;
    };

    expect(modules.filter((m) => HEAVY.test(m))).to.not.deep.equal([]);
    expect(reflect).to.equal('function');
  });
});
