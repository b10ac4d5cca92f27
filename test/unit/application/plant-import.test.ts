import { Readable } from 'node:stream';
import { expect } from 'chai';
import { parseExactJson } from '../../../src/adapters/exact-json.js';
import { MemoryPlantStore } from '../../../src/adapters/storage/memory/memory-plant-store.js';
import { readLines } from '../../../src/adapters/transfer/ndjson-lines.js';
import { exportPlants } from '../../../src/application/plant-export.js';
import {
  ImportRefused,
  importPlants,
  MAX_LINE_BYTES,
  type ImportProblem,
} from '../../../src/application/plant-import.js';

const HEADER =
  '{"format":"plant-store-export","version":1,"takenAt":"2026-01-01T00:00:00.000Z","tenants":null}';
const end = (plants: number) => `{"format":"plant-store-export","end":true,"plants":${plants}}`;
const line = (tenant: string, id: bigint | number, name = `plant ${id}`) =>
  `{"tenant":${JSON.stringify(tenant)},"id":${id},"name":${JSON.stringify(name)}}`;

async function* each(lines: readonly string[]): AsyncGenerator<string> {
  yield* lines;
}

async function exportText(store: MemoryPlantStore, tenants?: string[]): Promise<string[]> {
  const lines: string[] = [];
  for await (const text of exportPlants(store, { pageSize: 2, ...(tenants && { tenants }) })) {
    lines.push(text);
  }
  return lines;
}

describe('exportPlants and importPlants over the memory store', () => {
  it('when a store is exported and imported into another, then the second exports the same lines', async () => {
    const source = new MemoryPlantStore();
    for (const tenant of ['b', 'a', '🌱', '\uE000'])
      for (const id of [2n ** 63n - 1n, -(2n ** 63n), 2n ** 53n + 1n])
        await source.insert(tenant, { id, name: `${tenant} ${id}`, tag: '' });
    const lines = await exportText(source);
    const target = new MemoryPlantStore();

    const summary = await importPlants(target, each(lines), {
      parseJson: parseExactJson,
      batchSize: 2,
    });

    expect(summary).to.deep.include({ lines: 12, imported: 12, errors: 0, complete: true });
    expect((await exportText(target)).slice(1)).to.deep.equal(lines.slice(1));
    expect(lines.slice(1, 5).map((l) => JSON.parse(l).tenant)).to.deep.equal(['a', 'a', 'a', 'b']);
    expect(lines[10]).to.match(/^\{"tenant":"🌱"/);
  });

  it('when tenants are named, then the header lists them and only their plants follow', async () => {
    const store = new MemoryPlantStore();
    await store.insert('a', { id: 1n, name: 'one' });
    await store.insert('b', { id: 2n, name: 'two' });

    const lines = await exportText(store, ['b', 'b', 'none']);

    expect(lines[0]).to.match(/"tenants":\["b","none"\]\}$/);
    expect(lines.slice(1)).to.deep.equal([line('b', 2, 'two'), end(1)]);
  });

  it('when one id comes twice in a file, then the second is compared with the first, not lost', async () => {
    const problems: ImportProblem[] = [];
    const store = new MemoryPlantStore();

    const summary = await importPlants(
      store,
      each([HEADER, line('t', 1, 'first'), line('t', 1, 'second'), end(2)]),
      { parseJson: parseExactJson, onConflict: 'skip', onProblem: (p) => problems.push(p) },
    );

    expect(summary).to.deep.include({ imported: 1, conflicts: 1 });
    expect(problems).to.deep.equal([
      { line: 3, code: 'conflict', reason: 'tenant "t" holds plant 1 with other content' },
    ]);
  });

  it('when a batch repeats an id of a batch in flight, then it waits for it, as a store with a pool may not', async () => {
    // The first write lands after the second when both are sent at once, as two connections of
    // a pool may have it; alone, it lands after a few turns of the event loop.
    const memory = new MemoryPlantStore();
    let writes = 0;
    let secondLanded: () => void = () => {};
    const second = new Promise<void>((resolve) => (secondLanded = resolve));
    const turns = (n: number): Promise<void> =>
      new Promise((resolve) => setImmediate(() => resolve(n > 1 ? turns(n - 1) : undefined)));
    const store = Object.create(memory) as MemoryPlantStore;
    store.importBatch = async (...args) => {
      const mine = ++writes;
      if (mine === 1) await Promise.race([second, turns(10)]);
      const outcomes = await memory.importBatch(...args);
      if (mine === 2) secondLanded();
      return outcomes;
    };
    const lines = [HEADER, line('t', 1, 'A'), line('t', 2, 'A'), line('t', 1, 'B'), end(3)];

    const summary = await importPlants(store, each(lines), {
      parseJson: parseExactJson,
      onConflict: 'overwrite',
    });

    expect(summary).to.deep.include({ imported: 2, replaced: 1, conflicts: 0 });
    expect(await memory.list('t', undefined, 10)).to.deep.equal([
      { id: 1n, name: 'B' },
      { id: 2n, name: 'A' },
    ]);
  });

  it('when the signal aborts, then the import stops between batches and says interrupted', async () => {
    const controller = new AbortController();
    const store = new MemoryPlantStore();
    const lines = [HEADER, ...Array.from({ length: 10 }, (_, i) => line('t', i)), end(10)];

    const summary = await importPlants(store, each(lines), {
      parseJson: parseExactJson,
      batchSize: 3,
      signal: controller.signal,
      onProgress: () => controller.abort(),
    });

    // Whole batches only, and not all of them.
    expect(summary).to.deep.include({ stopped: 'interrupted', complete: false });
    expect(summary.imported % 3).to.equal(0);
    expect(summary.imported).to.be.within(3, 9);
    expect(await store.list('t', undefined, 100)).to.have.length(summary.imported);
  });

  it('when the header is of another version or missing, then the import is refused whole', async () => {
    const store = new MemoryPlantStore();
    const refused = (lines: string[]) =>
      importPlants(store, each(lines), { parseJson: parseExactJson }).then(
        () => expect.fail('imported'),
        (error: unknown) => error,
      );

    expect(await refused([HEADER.replace('"version":1', '"version":2'), end(0)])).to.be.instanceOf(
      ImportRefused,
    );
    expect(await refused([end(0)])).to.be.instanceOf(ImportRefused);
    expect(await refused([])).to.be.instanceOf(ImportRefused);
    expect(await store.tenants(undefined, 10)).to.deep.equal([]);
  });

  it('when a line follows the end line, or bytes are not UTF-8, then each is a bad line', async () => {
    const problems: ImportProblem[] = [];
    const bytes = Buffer.concat([
      Buffer.from(`${HEADER}\n${line('t', 1)}\n`),
      Buffer.from([0x7b, 0xff, 0x7d, 0x0a]),
      Buffer.from(`${end(2)}\n${line('t', 2)}\n`),
      Buffer.from(`${'x'.repeat(MAX_LINE_BYTES + 10)}`),
    ]);

    const summary = await importPlants(
      new MemoryPlantStore(),
      readLines(Readable.from([bytes.subarray(0, 100), bytes.subarray(100)]), MAX_LINE_BYTES),
      { parseJson: parseExactJson, maxErrors: 10, onProblem: (p) => problems.push(p) },
    );

    expect(problems.map((p) => [p.line, p.reason.slice(0, 20)])).to.deep.equal([
      [3, 'not UTF-8 text of at'],
      [5, 'a line after the end'],
      [6, 'not UTF-8 text of at'],
    ]);
    expect(summary).to.deep.include({ imported: 1, errors: 3, complete: true });
  });
});
