import { createServer } from 'node:http';
import { once } from 'node:events';
import { expect } from 'chai';
import type { StorageOptions } from '../../../../src/config/index.js';
import {
  PlantStoreClient,
  PlantStoreError,
  PlantStoreHttpError,
  PlantStoreNetworkError,
  PlantStoreResponseError,
  type PlantStoreClientOptions,
} from '../../../../packages/client/src/index.js';
import { freePort } from '../../../support/free-port.js';
import { Api, type Role } from '../../../support/http-harness.js';

const MIN = -(2n ** 63n);
const MAX = 2n ** 63n - 1n;
const TWO_53 = 2n ** 53n;

/** Resolves the rejection of a promise that must reject. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  return expect.fail('the call resolved; it should have failed');
}

/** Asserts a PlantStoreHttpError with the contract's status and code, and a message. */
export function expectHttpError(error: unknown, status: number, code: number): PlantStoreHttpError {
  expect(error).to.be.instanceOf(PlantStoreHttpError).and.instanceOf(PlantStoreError);
  const failure = error as PlantStoreHttpError;
  expect([failure.status, failure.code], failure.message).to.deep.equal([status, code]);
  expect(failure.message).to.be.a('string').and.not.equal('');
  return failure;
}

/** A client of the running service, acting as `role`. */
export function clientOf(
  api: Api,
  role: Role = 'both',
  options: Partial<PlantStoreClientOptions> = {},
): PlantStoreClient {
  return new PlantStoreClient({
    baseUrl: `http://127.0.0.1:${api.port}`,
    token: api.tokens[role],
    ...options,
  });
}

/** Everything the client offers, against the real service on one storage. */
export function describeClient(
  name: string,
  storage: (context: Mocha.Context) => Promise<StorageOptions>,
): void {
  describe(`plant-store/client on ${name}`, function () {
    let api: Api;
    let client: PlantStoreClient;

    before(async function () {
      api = await Api.start(await storage(this));
    });
    after(async () => api?.close());
    beforeEach(() => {
      api.newTenants();
      client = clientOf(api);
    });

    const names = async (): Promise<string[]> => {
      const names: string[] = [];
      for await (const plant of client.allPlants()) names.push(plant.name);
      return names;
    };

    it('when ids at both int64 extremes and around 2^53 are created, then they come back in exact order', async () => {
      const ids = [MAX, TWO_53 + 1n, TWO_53, -(TWO_53 + 1n), MIN];
      for (const id of ids) {
        expect(await client.createPlant({ id, name: `p${id}`, tag: 't' })).to.deep.equal({
          name: `p${id}`,
          tag: 't',
        });
      }

      expect(await names()).to.deep.equal([...ids].reverse().map((id) => `p${id}`));
    });

    it('when 2^53 + 1 is created, then 2^53 is still free and each is deleted by its own id', async () => {
      await client.createPlant({ id: 9007199254740993n, name: 'odd' });
      await client.createPlant({ id: 9007199254740992n, name: 'even' });

      await client.deletePlant(9007199254740993n);

      expect(await names()).to.deep.equal(['even']);
    });

    it('when the extremes are deleted, then exactly they are gone', async () => {
      for (const id of [MIN, 0n, MAX]) await client.createPlant({ id, name: `p${id}` });

      await client.deletePlant(MIN);
      await client.deletePlant(MAX);

      expect(await names()).to.deep.equal(['p0']);
    });

    it('when an id is a safe integer number, then it is sent as that integer', async () => {
      await client.createPlant({ id: Number.MAX_SAFE_INTEGER, name: 'safe' });
      await client.deletePlant(9007199254740991n);
      expect(await names()).to.deep.equal([]);
    });

    it('when plants span several pages, then allPlants follows Link to the last one, and listPlants hands out the cursors', async () => {
      const ids = Array.from({ length: 23 }, (_, i) => MIN + BigInt(i) * (MAX / 11n));
      for (const id of [...ids].reverse()) await client.createPlant({ id, name: `p${id}` });
      const expected = ids.map((id) => `p${id}`);

      const all: string[] = [];
      for await (const plant of client.allPlants({ limit: 5 })) all.push(plant.name);
      const paged: string[][] = [];
      let page = await client.listPlants({ limit: 5 });
      for (;;) {
        paged.push(page.plants.map((plant) => plant.name));
        if (page.next === undefined) break;
        page = await client.listPlants({ limit: 5, cursor: page.next });
      }

      expect(all).to.deep.equal(expected);
      expect(paged.map((names) => names.length)).to.deep.equal([5, 5, 5, 5, 3]);
      expect(paged.flat()).to.deep.equal(expected);
    });

    it('when a plant is got by an id beyond 2^53, then getPlant resolves exactly that plant', async () => {
      await client.createPlant({ id: TWO_53 + 1n, name: 'odd', tag: 'fern' });
      await client.createPlant({ id: TWO_53, name: 'even' });
      await client.createPlant({ id: 7n, name: 'seven' });

      expect(await client.getPlant(TWO_53 + 1n)).to.deep.equal({ name: 'odd', tag: 'fern' });
      expect(await client.getPlant(TWO_53)).to.deep.equal({ name: 'even' });
      expect(await client.getPlant(7)).to.deep.equal({ name: 'seven' });
    });

    it('when plants of several tags span several pages, then listPlants and allPlants with tags keep the filter page after page', async () => {
      const ids = Array.from({ length: 15 }, (_, i) => MIN + BigInt(i) * (MAX / 7n));
      const tags = ['aroid', 'fern', 'a,b'];
      for (const [i, id] of ids.entries()) {
        await client.createPlant({ id, name: `p${i}`, ...(i % 5 !== 4 && { tag: tags[i % 3] }) });
      }
      const wanted = ['aroid', 'a,b'];
      const expected = ids
        .map((_, i) => i)
        .filter((i) => i % 5 !== 4 && wanted.includes(tags[i % 3]!))
        .map((i) => `p${i}`);

      const all: string[] = [];
      for await (const plant of client.allPlants({ limit: 2, tags: wanted })) all.push(plant.name);
      const paged: string[] = [];
      let page = await client.listPlants({ limit: 2, tags: wanted });
      for (;;) {
        paged.push(...page.plants.map((plant) => plant.name));
        if (page.next === undefined) break;
        page = await client.listPlants({ limit: 2, tags: wanted, cursor: page.next });
      }

      expect(expected).to.have.length(8);
      expect(all).to.deep.equal(expected);
      expect(paged).to.deep.equal(expected);
      expect(await client.listPlants({ tags: ['none'] })).to.deep.equal({ plants: [] });
    });

    it('when tags is an empty list, then listPlants throws a RangeError before sending (no filter would list every plant)', async () => {
      let sent = 0;
      const counting = clientOf(api, 'both', {
        fetch: (input, init) => (sent++, fetch(input, init)),
      });
      const error = await rejection(counting.listPlants({ tags: [] }));
      expect(error).to.be.instanceOf(RangeError);
      expect(sent).to.equal(0);
    });

    it('when a tenant has no plants, then allPlants yields nothing and listPlants has no next', async () => {
      expect(await names()).to.deep.equal([]);
      expect(await client.listPlants()).to.deep.equal({ plants: [] });
    });

    describe('a PlantStoreHttpError with the contract status and code', () => {
      const refusals: [string, () => Promise<unknown>, number, number][] = [
        ['the name is empty', () => client.createPlant({ id: 1n, name: '' }), 400, 40002],
        ['the cursor is not from a Link', () => client.listPlants({ cursor: 'nope' }), 400, 40003],
        ['the limit is not a whole number', () => client.listPlants({ limit: 1.5 }), 400, 40003],
        [
          'the credentials are malformed',
          () => clientOf(api, 'both', { token: 'not a token' }).listPlants(),
          400,
          40005,
        ],
        [
          'the token is unknown',
          () => clientOf(api, 'both', { token: 'unknown-token-0123456789' }).listPlants(),
          401,
          40102,
        ],
        [
          'a read-only token creates',
          () => clientOf(api, 'read').createPlant({ id: 1n, name: 'x' }),
          403,
          40301,
        ],
        ['the plant is missing', () => client.deletePlant(MAX), 404, 40401],
        ['the plant to get is missing', () => client.getPlant(MAX), 404, 40401],
        [
          'more than 20 tags are asked for',
          () => client.listPlants({ tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }),
          400,
          40003,
        ],
        [
          'a tag is over 64 characters',
          () => client.listPlants({ tags: ['x'.repeat(65)] }),
          400,
          40003,
        ],
        ['a write-only token gets a plant', () => clientOf(api, 'write').getPlant(1n), 403, 40301],
        [
          'no service is under the base URL',
          () => clientOf(api, 'both', { baseUrl: `http://127.0.0.1:${api.port}/v9` }).listPlants(),
          404,
          40402,
        ],
        [
          'the body is over 64 KiB',
          () => client.createPlant({ id: 1n, name: 'x'.repeat(70_000) }),
          413,
          41301,
        ],
      ];
      for (const [what, call, status, code] of refusals) {
        it(`when ${what}, then ${status} (${code})`, async () => {
          const error = expectHttpError(await rejection(call()), status, code);
          expect([error.attempts, error.retried]).to.deep.equal([1, []]);
        });
      }

      it('when the id is taken, then 409 (40901), naming the id exactly', async () => {
        await client.createPlant({ id: TWO_53 + 1n, name: 'first' });
        const error = await rejection(client.createPlant({ id: TWO_53 + 1n, name: 'again' }));
        expect(expectHttpError(error, 409, 40901).message).to.include('9007199254740993');
      });
    });

    it('when nothing listens at the base URL, then a PlantStoreNetworkError carries the cause', async () => {
      const port = await freePort();
      const offline = clientOf(api, 'both', { baseUrl: `http://127.0.0.1:${port}` });

      const error = await rejection(offline.listPlants());

      expect(error).to.be.instanceOf(PlantStoreNetworkError).and.instanceOf(PlantStoreError);
      expect((error as PlantStoreNetworkError).cause).to.be.instanceOf(Error);
      expect((error as PlantStoreNetworkError).status).to.equal(undefined);
    });

    it('when something other than the service answers (a proxy page), then a PlantStoreResponseError has its status', async () => {
      const proxy = createServer((_req, res) => {
        res.writeHead(502, { 'Content-Type': 'text/html' });
        res.end('<h1>Bad Gateway</h1>');
      }).listen(0, '127.0.0.1');
      await once(proxy, 'listening');
      const { port } = proxy.address() as { port: number };
      try {
        const error = await rejection(
          clientOf(api, 'both', { baseUrl: `http://127.0.0.1:${port}` }).listPlants(),
        );
        expect(error).to.be.instanceOf(PlantStoreResponseError).and.instanceOf(PlantStoreError);
        expect((error as PlantStoreResponseError).status).to.equal(502);
        expect((error as PlantStoreResponseError).body).to.include('Bad Gateway');
      } finally {
        proxy.close();
      }
    });
  });
}
