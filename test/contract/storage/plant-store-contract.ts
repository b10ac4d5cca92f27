import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { MAX_PLANT_ID, MIN_PLANT_ID } from '../../../src/domain/plant-id.js';
import type { StoredPlant } from '../../../src/domain/plant.js';
import type { PlantStore } from '../../../src/ports/plant-store.js';

/** How a suite gets a store (an opened Storage fits); a harness whose server is absent skips or fails through serverMissing before `open`. */
export interface StoreHarness {
  open(): Promise<{ plants: PlantStore; close(): Promise<void> }>;
}

const EDGE_IDS = [
  MIN_PLANT_ID,
  MIN_PLANT_ID + 1n,
  -(2n ** 53n) - 1n,
  -(2n ** 53n),
  -65536n,
  -256n,
  -255n,
  -1n,
  0n,
  1n,
  255n,
  256n,
  65536n,
  2n ** 53n - 1n,
  2n ** 53n,
  2n ** 53n + 1n,
  2n ** 62n,
  MAX_PLANT_ID - 1n,
  MAX_PLANT_ID,
];

const plant = (id: bigint, tag?: string): StoredPlant =>
  tag === undefined ? { id, name: `plant ${id}` } : { id, name: `plant ${id}`, tag };

const shuffled = <T>(items: readonly T[]): T[] => {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
};

/** The storage port's contract; every PlantStore adapter runs it unchanged. */
export function describePlantStoreContract(name: string, harness: StoreHarness): void {
  describe(`PlantStore contract: ${name}`, () => {
    let store: PlantStore;
    let close: (() => Promise<void>) | undefined;
    // Each test works in a tenant of its own, so tests need no cleanup and cannot see each other.
    let tenant: string;

    before(async () => {
      ({ plants: store, close } = await harness.open());
    });
    after(async () => {
      await close?.();
    });
    beforeEach(() => {
      tenant = `t-${randomUUID()}`;
    });

    it('when a plant is inserted, then it is listed with exactly its fields', async () => {
      expect(await store.insert(tenant, { id: 7n, name: 'Monstera', tag: 'aroid' })).to.equal(true);
      expect(await store.insert(tenant, { id: 8n, name: 'Fern' })).to.equal(true);
      expect(await store.insert(tenant, { id: 9n, name: 'Moss', tag: '' })).to.equal(true);

      const listed = await store.list(tenant, undefined, 10);

      expect(listed).to.deep.equal([
        { id: 7n, name: 'Monstera', tag: 'aroid' },
        { id: 8n, name: 'Fern' },
        { id: 9n, name: 'Moss', tag: '' },
      ]);
      expect(listed[1]).to.not.have.property('tag');
    });

    it('when names and tags hold any Unicode, then they come back unchanged', async () => {
      const name = 'Ünïcödé 🌵 植物 "quoted" \\ back/slash \u2028 ' + 'x'.repeat(200);
      await store.insert(tenant, { id: 1n, name, tag: '🌱' });

      expect(await store.list(tenant, undefined, 1)).to.deep.equal([{ id: 1n, name, tag: '🌱' }]);
    });

    it('when an id is taken in the tenant, then insert resolves false and keeps the first plant', async () => {
      await store.insert(tenant, { id: 1n, name: 'first' });

      expect(await store.insert(tenant, { id: 1n, name: 'second', tag: 'x' })).to.equal(false);
      expect(await store.list(tenant, undefined, 10)).to.deep.equal([{ id: 1n, name: 'first' }]);
    });

    it('when ids span the whole int64 range, then listing orders them numerically and exactly', async () => {
      for (const id of shuffled(EDGE_IDS))
        expect(await store.insert(tenant, plant(id))).to.equal(true);

      const listed = await store.list(tenant, undefined, 100);

      expect(listed.map((p) => p.id)).to.deep.equal(EDGE_IDS);
      expect(listed.map((p) => p.name)).to.deep.equal(EDGE_IDS.map((id) => `plant ${id}`));
    });

    it('when 2^53 and 2^53+1 are both stored, then they are two plants', async () => {
      await store.insert(tenant, plant(2n ** 53n));

      expect(await store.insert(tenant, plant(2n ** 53n + 1n))).to.equal(true);
      expect(await store.delete(tenant, 2n ** 53n + 1n)).to.equal(true);
      expect((await store.list(tenant, undefined, 10)).map((p) => p.id)).to.deep.equal([2n ** 53n]);
    });

    it('when listing with a limit and an after id, then pages continue without gaps or repeats', async () => {
      for (const id of shuffled(EDGE_IDS)) await store.insert(tenant, plant(id));
      const seen: bigint[] = [];
      let after: bigint | undefined;

      for (;;) {
        const page = await store.list(tenant, after, 4);
        expect(page.length).to.be.at.most(4);
        if (page.length === 0) break;
        seen.push(...page.map((p) => p.id));
        after = page[page.length - 1]!.id;
      }

      expect(seen).to.deep.equal(EDGE_IDS);
    });

    it('when after lies between or beyond ids, then only greater ids follow', async () => {
      for (const id of [-5n, 0n, 5n]) await store.insert(tenant, plant(id));

      expect((await store.list(tenant, -1n, 10)).map((p) => p.id)).to.deep.equal([0n, 5n]);
      expect((await store.list(tenant, 0n, 10)).map((p) => p.id)).to.deep.equal([5n]);
      expect((await store.list(tenant, MIN_PLANT_ID, 1)).map((p) => p.id)).to.deep.equal([-5n]);
      expect(await store.list(tenant, MAX_PLANT_ID, 10)).to.deep.equal([]);
    });

    it('when a tenant has no plants, then listing resolves an empty array', async () => {
      expect(await store.list(tenant, undefined, 10)).to.deep.equal([]);
    });

    it('when a plant is deleted, then delete resolves true once and it is gone', async () => {
      await store.insert(tenant, plant(3n));
      await store.insert(tenant, plant(4n));

      expect(await store.delete(tenant, 3n)).to.equal(true);
      expect(await store.delete(tenant, 3n)).to.equal(false);
      expect((await store.list(tenant, undefined, 10)).map((p) => p.id)).to.deep.equal([4n]);
    });

    it('when a deleted id is inserted again, then it is a new plant', async () => {
      await store.insert(tenant, { id: 3n, name: 'old' });
      await store.delete(tenant, 3n);

      expect(await store.insert(tenant, { id: 3n, name: 'new' })).to.equal(true);
      expect(await store.list(tenant, undefined, 10)).to.deep.equal([{ id: 3n, name: 'new' }]);
    });

    it('when two tenants use one id, then each sees, deletes and collides only with its own', async () => {
      const other = `${tenant}-other`;
      await store.insert(tenant, { id: 1n, name: 'mine' });

      expect(await store.insert(other, { id: 1n, name: 'theirs' })).to.equal(true);
      expect(await store.list(other, undefined, 10)).to.deep.equal([{ id: 1n, name: 'theirs' }]);
      expect(await store.delete(other, 1n)).to.equal(true);
      expect(await store.delete(other, 1n)).to.equal(false);
      expect(await store.list(tenant, undefined, 10)).to.deep.equal([{ id: 1n, name: 'mine' }]);
    });

    it('when tenant names hold key syntax ({, }, :, *), then tenants stay apart', async () => {
      const tenants = [`${tenant}:a`, `${tenant}{b}`, `${tenant}}`, `${tenant}*`, `${tenant}`];
      for (const [i, t] of tenants.entries()) await store.insert(t, plant(BigInt(i)));

      for (const [i, t] of tenants.entries()) {
        expect((await store.list(t, undefined, 10)).map((p) => p.id)).to.deep.equal([BigInt(i)]);
      }
    });

    it('when 20 inserts of one id race, then exactly one wins and its plant is stored', async () => {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => store.insert(tenant, { id: 42n, name: `racer ${i}` })),
      );

      expect(results.filter(Boolean)).to.have.length(1);
      const winner = results.indexOf(true);
      expect(await store.list(tenant, undefined, 10)).to.deep.equal([
        { id: 42n, name: `racer ${winner}` },
      ]);
    });

    it('when limit is 0, then listing resolves an empty array', async () => {
      await store.insert(tenant, plant(1n));

      expect(await store.list(tenant, undefined, 0)).to.deep.equal([]);
    });

    /** Every tenant above `after` whose name starts with `prefix`, paging `limit` at a time. */
    const tenantsOf = async (prefix: string, limit: number): Promise<string[]> => {
      const seen: string[] = [];
      let after: string | undefined = prefix;
      for (;;) {
        const page = await store.tenants(after, limit);
        expect(page.length).to.be.at.most(limit);
        if (page.length === 0) return seen;
        seen.push(...page.filter((t) => t.startsWith(prefix)));
        after = page[page.length - 1];
      }
    };

    it('when tenants hold plants, then tenants pages through them in code-point order, without emptied ones', async () => {
      // UTF-16 order would put the astral 🌵 before U+E000; code-point (UTF-8 byte) order after it.
      const names = ['-\u{E000}', '-🌵', '-a', '-é', '-{b}:*', '-gone'].map((n) => tenant + n);
      for (const name of shuffled(names)) await store.insert(name, plant(1n));
      await store.delete(`${tenant}-gone`, 1n);

      const listed = await tenantsOf(tenant, 2);

      expect(listed).to.deep.equal([
        `${tenant}-a`,
        `${tenant}-{b}:*`,
        `${tenant}-é`,
        `${tenant}-\u{E000}`,
        `${tenant}-🌵`,
      ]);
    });

    it('when hundreds of tenants are paged through in small pages, then each comes once, in order', async function () {
      // 300 imports and 43 pages: FerretDB on a loaded machine takes longer than the default.
      this.timeout(60_000);
      const names = Array.from({ length: 300 }, (_, i) => `${tenant}-${i}`);
      await Promise.all(names.map((name) => store.importBatch(name, [plant(1n)], false)));

      const listed = await tenantsOf(tenant, 7);

      expect(listed).to.deep.equal([...names].sort());
    });

    it('when a batch is imported into an empty tenant, then every plant is stored exactly', async () => {
      const plants = shuffled(EDGE_IDS).map((id, i) =>
        plant(id, i % 2 === 0 ? undefined : `t${i}`),
      );

      const outcomes = await store.importBatch(tenant, plants, false);

      expect(outcomes).to.deep.equal(plants.map(() => 'stored'));
      const listed = await store.list(tenant, undefined, 100);
      expect(listed).to.deep.equal([...plants].sort((a, b) => (a.id < b.id ? -1 : 1)));
    });

    it('when a batch meets held plants, then each is present (same content) or a conflict (kept), the rest stored', async () => {
      await store.insert(tenant, { id: 1n, name: 'same', tag: 'x' });
      await store.insert(tenant, { id: 2n, name: 'held' });
      await store.insert(tenant, { id: 3n, name: 'tagged', tag: '' });

      const outcomes = await store.importBatch(
        tenant,
        [
          { id: 1n, name: 'same', tag: 'x' },
          { id: 2n, name: 'other' },
          { id: 3n, name: 'tagged' },
          { id: 4n, name: 'new' },
        ],
        false,
      );

      expect(outcomes).to.deep.equal(['present', 'conflict', 'conflict', 'stored']);
      expect(await store.list(tenant, undefined, 10)).to.deep.equal([
        { id: 1n, name: 'same', tag: 'x' },
        { id: 2n, name: 'held' },
        { id: 3n, name: 'tagged', tag: '' },
        { id: 4n, name: 'new' },
      ]);
    });

    it('when a batch overwrites, then conflicts are replaced (a tag dropped too) and same plants stay present', async () => {
      await store.insert(tenant, { id: 1n, name: 'same' });
      await store.insert(tenant, { id: 2n, name: 'old', tag: 'gone' });

      const outcomes = await store.importBatch(
        tenant,
        [
          { id: 1n, name: 'same' },
          { id: 2n, name: 'new' },
        ],
        true,
      );

      expect(outcomes).to.deep.equal(['present', 'replaced']);
      const listed = await store.list(tenant, undefined, 10);
      expect(listed).to.deep.equal([
        { id: 1n, name: 'same' },
        { id: 2n, name: 'new' },
      ]);
      expect(listed[1]).to.not.have.property('tag');
    });

    it('when the same batch is imported twice, then the second finds every plant present', async () => {
      const plants = [plant(2n ** 53n + 1n), plant(MIN_PLANT_ID, '🌱'), plant(MAX_PLANT_ID)];
      await store.importBatch(tenant, plants, false);

      expect(await store.importBatch(tenant, plants, false)).to.deep.equal([
        'present',
        'present',
        'present',
      ]);
      expect(await store.list(tenant, undefined, 10)).to.have.length(3);
    });

    it('when two imports of the same batch race, then each plant is stored once and found present by the other', async () => {
      const plants = [plant(1n), plant(2n), plant(3n, 'x')];

      const [first, second] = await Promise.all([
        store.importBatch(tenant, plants, false),
        store.importBatch(tenant, plants, false),
      ]);

      for (const [i] of plants.entries()) {
        expect([first![i], second![i]].sort()).to.deep.equal(['present', 'stored']);
      }
      expect(await store.list(tenant, undefined, 10)).to.deep.equal(plants);
    });

    it('when an empty batch is imported, then nothing happens', async () => {
      expect(await store.importBatch(tenant, [], true)).to.deep.equal([]);
      expect(await tenantsOf(tenant, 10)).to.deep.equal([]);
    });

    it("when a plant is got by id, then exactly its fields; an absent id, another tenant's or a deleted one is undefined", async () => {
      await store.insert(tenant, { id: 7n, name: 'Monstera', tag: 'aroid' });
      await store.insert(tenant, { id: 8n, name: 'Fern' });
      await store.insert(`${tenant}-other`, { id: 9n, name: 'Other' });
      for (const id of [MIN_PLANT_ID, MAX_PLANT_ID, 2n ** 53n + 1n])
        await store.insert(tenant, plant(id));

      expect(await store.get(tenant, 7n)).to.deep.equal({ id: 7n, name: 'Monstera', tag: 'aroid' });
      const fern = await store.get(tenant, 8n);
      expect(fern).to.deep.equal({ id: 8n, name: 'Fern' });
      expect(fern).to.not.have.property('tag');
      for (const id of [MIN_PLANT_ID, MAX_PLANT_ID, 2n ** 53n + 1n]) {
        expect(await store.get(tenant, id)).to.deep.equal(plant(id));
      }
      expect(await store.get(tenant, 2n ** 53n)).to.equal(undefined);
      expect(await store.get(tenant, 9n)).to.equal(undefined);
      await store.delete(tenant, 7n);
      expect(await store.get(tenant, 7n)).to.equal(undefined);
    });

    it('when listing by tags, then only plants holding one of them, by id, paged without gaps', async () => {
      const held: StoredPlant[] = [];
      for (const id of shuffled(EDGE_IDS)) {
        const tag = ['aroid', 'fern', '', undefined, 'Aroid', 'aroid ', '🌱'][Number(id & 7n) % 7];
        held.push(plant(id, tag));
        await store.insert(tenant, plant(id, tag));
      }
      await store.insert(`${tenant}-other`, plant(5n, 'aroid'));
      const wanted = ['', 'aroid', '🌱'];
      const expected = held
        .filter((p) => p.tag !== undefined && wanted.includes(p.tag))
        .sort((a, b) => (a.id < b.id ? -1 : 1));
      expect(expected.length).to.be.above(4);

      const seen: StoredPlant[] = [];
      for (let after: bigint | undefined; ;) {
        const page = await store.list(tenant, after, 3, wanted);
        expect(page.length).to.be.at.most(3);
        if (page.length === 0) break;
        seen.push(...page);
        after = page[page.length - 1]!.id;
      }
      expect(seen).to.deep.equal(expected);
      expect(await store.list(tenant, undefined, 100, ['aroid'])).to.deep.equal(
        expected.filter((p) => p.tag === 'aroid'),
      );
      expect(await store.list(tenant, undefined, 10, ['none'])).to.deep.equal([]);
      expect(await store.list(`${tenant}-none`, undefined, 10, ['aroid'])).to.deep.equal([]);
    });

    it('when tagged plants are deleted, replaced by an import or imported, then the tag filter follows', async () => {
      await store.insert(tenant, plant(1n, 'aroid'));
      await store.insert(tenant, plant(2n, 'aroid'));
      await store.insert(tenant, plant(3n, 'fern'));
      await store.delete(tenant, 1n);
      await store.importBatch(
        tenant,
        [plant(2n, 'fern'), plant(3n), plant(4n, 'aroid'), plant(5n, 'fern')],
        true,
      );
      // A conflict kept (not overwritten) keeps its tag.
      await store.importBatch(tenant, [plant(4n, 'fern')], false);

      expect(await store.list(tenant, undefined, 10, ['aroid'])).to.deep.equal([
        plant(4n, 'aroid'),
      ]);
      expect(await store.list(tenant, undefined, 10, ['fern'])).to.deep.equal([
        plant(2n, 'fern'),
        plant(5n, 'fern'),
      ]);
      expect(await store.list(tenant, 2n, 1, ['aroid', 'fern'])).to.deep.equal([
        plant(4n, 'aroid'),
      ]);
    });

    it('when pinged, then it resolves', async () => {
      await store.ping();
    });
  });
}
