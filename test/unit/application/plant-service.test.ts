import { expect } from 'chai';
import type { Caller } from '../../../src/domain/caller.js';
import { PlantError } from '../../../src/domain/errors.js';
import { PlantService } from '../../../src/application/plant-service.js';
import type { StoredPlant } from '../../../src/domain/plant.js';
import type { PlantStore } from '../../../src/ports/plant-store.js';
import { rejection } from '../../support/rejection.js';

/** The smallest PlantStore that keeps its promises, so the core is tested with no adapter at all. */
class ArrayPlantStore implements PlantStore {
  readonly plants: (StoredPlant & { tenant: string })[] = [];
  async insert(tenant: string, plant: StoredPlant) {
    if (this.plants.some((p) => p.tenant === tenant && p.id === plant.id)) return false;
    this.plants.push({ tenant, ...plant });
    return true;
  }
  async get(tenant: string, id: bigint) {
    return (await this.list(tenant, id - 1n, 1)).find((p) => p.id === id);
  }
  async list(tenant: string, after: bigint | undefined, limit: number, tags?: readonly string[]) {
    return this.plants
      .filter((p) => p.tenant === tenant && (after === undefined || p.id > after))
      .filter((p) => tags === undefined || (p.tag !== undefined && tags.includes(p.tag)))
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .slice(0, limit)
      .map(({ id, name, tag }) => (tag === undefined ? { id, name } : { id, name, tag }));
  }
  async delete(tenant: string, id: bigint) {
    const index = this.plants.findIndex((p) => p.tenant === tenant && p.id === id);
    if (index >= 0) this.plants.splice(index, 1);
    return index >= 0;
  }
  async tenants() {
    return [...new Set(this.plants.map((p) => p.tenant))].sort();
  }
  async importBatch(): Promise<never> {
    throw new Error('the plant service never imports');
  }
  async ping() {}
  async close() {}
}

const both: Caller = { tenant: 'a', scopes: ['plants:read', 'plants:write'] };
const readOnly: Caller = { tenant: 'a', scopes: ['plants:read'] };

describe('PlantService', () => {
  let store: ArrayPlantStore;
  let service: PlantService;
  beforeEach(() => {
    store = new ArrayPlantStore();
    service = new PlantService(store);
  });

  it('when a plant is created, then it answers name and tag without the id and stores it', async () => {
    expect(await service.createPlant(both, { id: 5n, name: 'Fern', tag: 'x' })).to.deep.equal({
      name: 'Fern',
      tag: 'x',
    });
    expect(store.plants).to.deep.equal([{ tenant: 'a', id: 5n, name: 'Fern', tag: 'x' }]);
  });

  it('when the tag is a string | undefined that is undefined, then it type-checks (exactOptionalPropertyTypes) and no tag is stored', async () => {
    const tag: string | undefined = undefined as string | undefined;
    expect(await service.createPlant(both, { id: 6n, name: 'Fern', tag })).to.deep.equal({
      name: 'Fern',
    });
    expect(store.plants).to.deep.equal([{ tenant: 'a', id: 6n, name: 'Fern' }]);
  });

  it('when the id is taken, then duplicate-plant and the first stays', async () => {
    await service.createPlant(both, { id: 5n, name: 'first' });

    expect(
      (await rejection(service.createPlant(both, { id: 5n, name: 'second' }), PlantError)).code,
    ).to.equal('duplicate-plant');
    expect(store.plants.map((p) => p.name)).to.deep.equal(['first']);
  });

  it('when the caller lacks plants:write, then insufficient-scope names it and nothing is stored', async () => {
    const error = await rejection(service.createPlant(readOnly, { id: 5n, name: 'x' }), PlantError);

    expect([error.code, error.scope]).to.deep.equal(['insufficient-scope', 'plants:write']);
    expect(store.plants).to.deep.equal([]);
  });

  it('when the caller lacks plants:read, then listing is refused', async () => {
    const error = await rejection(
      service.listPlants({ tenant: 'a', scopes: ['plants:write'] }),
      PlantError,
    );
    expect([error.code, error.scope]).to.deep.equal(['insufficient-scope', 'plants:read']);
  });

  it('when listing without a limit, then 100 plants and the id to continue after', async () => {
    for (let i = 0; i < 150; i++) await service.createPlant(both, { id: BigInt(i), name: `p${i}` });

    const page = await service.listPlants(both);

    expect(page.plants).to.have.length(100);
    expect(page.next).to.equal(99n);
    expect((await service.listPlants(both, { after: page.next! })).plants).to.have.length(50);
  });

  it('when the limit is above 1000, then 1000 plants; when 0, then none and no next', async () => {
    for (let i = 0; i < 1001; i++) await store.insert('a', { id: BigInt(i), name: 'x' });

    expect((await service.listPlants(both, { limit: 5000 })).plants).to.have.length(1000);
    expect(await service.listPlants(both, { limit: 0 })).to.deep.equal({ plants: [] });
  });

  it('when the page holds the last plant, then no next is given', async () => {
    await service.createPlant(both, { id: 1n, name: 'x' });

    expect(await service.listPlants(both, { limit: 1 })).to.deep.equal({ plants: [{ name: 'x' }] });
  });

  for (const limit of [-1, 1.5, Number.NaN]) {
    it(`when the limit is ${limit}, then invalid-query`, async () => {
      expect((await rejection(service.listPlants(both, { limit }), PlantError)).code).to.equal(
        'invalid-query',
      );
    });
  }

  it('when listing by tags, then only plants holding one of them, each once, by id, paged', async () => {
    await service.createPlant(both, { id: 3n, name: 'c', tag: 'fern' });
    await service.createPlant(both, { id: 1n, name: 'a', tag: 'aroid' });
    await service.createPlant(both, { id: 2n, name: 'b' });
    await service.createPlant(both, { id: 4n, name: 'd', tag: '' });
    await service.createPlant(both, { id: 5n, name: 'e', tag: 'aroid' });

    const first = await service.listPlants(both, { tags: ['fern', 'aroid', 'fern'], limit: 2 });
    expect(first).to.deep.equal({
      plants: [
        { name: 'a', tag: 'aroid' },
        { name: 'c', tag: 'fern' },
      ],
      next: 3n,
    });
    const second = await service.listPlants(both, { tags: ['aroid', 'fern'], after: 3n });
    expect(second).to.deep.equal({ plants: [{ name: 'e', tag: 'aroid' }] });
    // The empty tag is a tag a plant can hold; a plant without a tag matches no filter.
    expect(await service.listPlants(both, { tags: [''] })).to.deep.equal({
      plants: [{ name: 'd', tag: '' }],
    });
  });

  for (const tags of [
    [],
    Array.from({ length: 21 }, (_, i) => `t${i}`),
    ['x'.repeat(65)],
    ['a\u0007'],
    'fern',
  ]) {
    it(`when the tags filter is ${JSON.stringify(tags).slice(0, 40)}, then invalid-query`, async () => {
      const error = await rejection(
        service.listPlants(both, { tags: tags as string[] }),
        PlantError,
      );
      expect(error.code).to.equal('invalid-query');
    });
  }

  it("when getting a plant, then its name and tag; another tenant's or none is plant-not-found", async () => {
    await service.createPlant(both, { id: 7n, name: 'Monstera', tag: 'aroid' });

    expect(await service.getPlant(readOnly, 7n)).to.deep.equal({ name: 'Monstera', tag: 'aroid' });
    for (const [caller, id] of [
      [{ ...both, tenant: 'b' }, 7n],
      [both, 8n],
    ] as const) {
      expect((await rejection(service.getPlant(caller, id), PlantError)).code).to.equal(
        'plant-not-found',
      );
    }
    const writer: Caller = { tenant: 'a', scopes: ['plants:write'] };
    expect((await rejection(service.getPlant(writer, 7n), PlantError)).code).to.equal(
      'insufficient-scope',
    );
    expect((await rejection(service.getPlant(both, 2n ** 63n), PlantError)).code).to.equal(
      'invalid-plant',
    );
  });

  it('when another tenant deletes the id, then plant-not-found and it survives', async () => {
    await service.createPlant(both, { id: 1n, name: 'x' });

    const error = await rejection(service.deletePlant({ ...both, tenant: 'b' }, 1n), PlantError);

    expect(error.code).to.equal('plant-not-found');
    await service.deletePlant(both, 1n);
    expect(store.plants).to.deep.equal([]);
  });

  it('when a create is stored, then the events port hears of it once; a refused create tells it nothing', async () => {
    const heard: string[] = [];
    const service = new PlantService(new ArrayPlantStore(), {
      recorded: (tenant) => heard.push(tenant),
    });
    const writer: Caller = { tenant: 'events', scopes: ['plants:write'] };

    await service.createPlant(writer, { id: 1n, name: 'Fern' });
    await rejection(service.createPlant(writer, { id: 1n, name: 'Fern again' }));
    await rejection(service.createPlant({ tenant: 'events', scopes: [] }, { id: 2n, name: 'No' }));

    expect(heard).to.deep.equal(['events']);
  });
});
