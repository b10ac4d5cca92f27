import { expect } from 'chai';
import { parseExactJson } from '../../../src/adapters/exact-json.js';
import { importPlants } from '../../../src/application/plant-import.js';
import type { StoreHarness } from './plant-store-contract.js';

const IDS = 1000;

/** An export holding ids 1..IDS named `first`, then the same ids named `then`. */
async function* repeated(tenant: string, first: string, then: string): AsyncGenerator<string> {
  yield '{"format":"plant-store-export","version":1,"takenAt":"2026-01-01T00:00:00.000Z","tenants":null}';
  for (const name of [first, then]) {
    for (let id = 1; id <= IDS; id++) yield JSON.stringify({ tenant, id, name: `${name} ${id}` });
  }
  yield `{"format":"plant-store-export","end":true,"plants":${2 * IDS}}`;
}

/**
 * Batches are written several at once; one that repeats an id of a batch in flight waits for it,
 * whatever order the store would apply writes in flight in.
 */
export function describeImportOrder(name: string, open: StoreHarness['open']): void {
  describe(`importPlants on ${name}`, function () {
    this.timeout(120_000);
    let storage: Awaited<ReturnType<StoreHarness['open']>>;
    before(async () => {
      storage = await open();
    });
    after(() => storage?.close());

    it('when a file repeats 1,000 ids with other content under overwrite, then its later lines win', async () => {
      const tenant = `order-${Date.now()}`;

      const summary = await importPlants(storage.plants, repeated(tenant, 'A', 'B'), {
        parseJson: parseExactJson,
        onConflict: 'overwrite',
      });

      expect(summary).to.include({ imported: IDS, replaced: IDS, conflicts: 0, complete: true });
      const held = await storage.plants.list(tenant, undefined, IDS + 1);
      expect(held.map((plant) => plant.name)).to.deep.equal(
        Array.from({ length: IDS }, (_, i) => `B ${i + 1}`),
      );
    });
  });
}
