import { expect } from 'chai';
import { expectError, type Api } from '../../../support/http-harness.js';

const nextUrl = (link: string | string[] | undefined): string | undefined => {
  const match = /^<([^>]+)>; rel="next"$/.exec(String(link ?? ''));
  return match?.[1];
};

/** Seeds plants named after their ids straight into the store (fast even for thousands). */
async function seed(api: Api, ids: bigint[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 100) {
    await Promise.all(
      ids.slice(i, i + 100).map((id) => api.store.insert(api.tenant, { id, name: `p${id}` })),
    );
  }
}

const range = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => BigInt(from + i));

export function describeList(api: () => Api): void {
  describe('GET /plants', () => {
    it('when the tenant has no plants, then 200 answers []', async () => {
      const response = await api().request('GET', '/plants');

      expect(response.status).to.equal(200);
      expect(response.text).to.equal('[]');
      expect(response.headers.link).to.equal(undefined);
    });

    it('when plants were created in any order, then they are listed by ascending id', async () => {
      for (const id of [
        '5',
        '-3',
        '9223372036854775807',
        '0',
        '-9223372036854775808',
        '9007199254740993',
        '9007199254740992',
      ]) {
        await api().create(id, id);
      }

      expect(await api().names()).to.deep.equal([
        '-9223372036854775808',
        '-3',
        '0',
        '5',
        '9007199254740992',
        '9007199254740993',
        '9223372036854775807',
      ]);
    });

    it('when limit is absent, then 100 are returned with a next link', async () => {
      await seed(api(), range(1, 101));

      const response = await api().request('GET', '/plants');

      expect(JSON.parse(response.text)).to.have.length(100);
      expect(nextUrl(response.headers.link)).to.match(/^\/plants\?cursor=/);
    });

    it('when limit is 0, then [] without a link', async () => {
      await seed(api(), range(1, 3));

      const response = await api().request('GET', '/plants?limit=0');

      expect(response.text).to.equal('[]');
      expect(response.headers.link).to.equal(undefined);
    });

    it('when limit exceeds 1000 (up to 2147483647), then 1000 are returned', async () => {
      await seed(api(), range(1, 1001));

      expect(await api().names('?limit=1001')).to.have.length(1000);
      expect(await api().names('?limit=2147483647')).to.have.length(1000);
    });

    it('when limit fits the whole list, then no next link', async () => {
      await seed(api(), range(1, 3));

      const response = await api().request('GET', '/plants?limit=3');

      expect(JSON.parse(response.text)).to.have.length(3);
      expect(response.headers.link).to.equal(undefined);
    });

    for (const query of [
      'limit=-1',
      'limit=abc',
      'limit=1.5',
      'limit=%2B5',
      'limit=05',
      'limit=1e2',
      'limit=',
      'limit=2147483648',
      'limit=99999999999',
      'limit=1&limit=2',
      'cursor=abc',
      'cursor=',
      'cursor=MTox&cursor=MTox',
      'cursor=MTowMQ',
      'tags=' + 'x'.repeat(65),
      'tags=a%07',
      Array.from({ length: 21 }, (_, i) => `tags=t${i}`).join('&'),
    ]) {
      it(`when the query is ${query}, then 400 40003`, async () => {
        expectError(await api().request('GET', `/plants?${query}`), 400, 40003);
      });
    }

    it('when unknown query parameters are sent, then they are ignored', async () => {
      await api().create('1', 'one');

      expect(await api().names('?sort=desc&x=1&limit=5')).to.deep.equal(['one']);
    });

    it('when following next links, then every plant comes once, in order, even with writes in between', async () => {
      await seed(api(), range(10, 25));
      const seen: string[] = [];
      let url: string | undefined = '/plants?limit=10';
      let pages = 0;

      while (url !== undefined) {
        const response = await api().request('GET', url);
        expect(response.status).to.equal(200);
        seen.push(...(JSON.parse(response.text) as { name: string }[]).map((p) => p.name));
        url = nextUrl(response.headers.link);
        if (pages++ === 0) {
          // Between pages: one plant before the cursor, one after it, and one deletion ahead.
          await api().create('1', 'p1');
          await api().create('100', 'p100');
          expect((await api().request('DELETE', '/plants/30')).status).to.equal(204);
        }
        expect(url === undefined || url.includes('limit=10')).to.equal(true);
      }

      const expected = [...range(10, 25).filter((id) => id !== 30n), 100n].map((id) => `p${id}`);
      expect(seen).to.deep.equal(expected);
    });

    it('when listing with tags, then only plants holding one of them, by id, and next links keep the filter', async () => {
      const tags = ['aroid', 'fern', 'a b&c', undefined, ''];
      for (let id = 1; id <= 30; id++) {
        await api().create(String(id), `p${id}`, tags[id % tags.length]);
      }
      await api().create('2', 'other aroid', 'aroid', 'other');
      const seen: string[] = [];
      let url: string | undefined = '/plants?tags=aroid&tags=a+b%26c&limit=4';

      while (url !== undefined) {
        const response = await api().request('GET', url);
        expect(response.status, response.text).to.equal(200);
        seen.push(...(JSON.parse(response.text) as { name: string }[]).map((p) => p.name));
        url = nextUrl(response.headers.link);
        expect(
          url === undefined || /^\/plants\?limit=4&tags=aroid&tags=a\+b%26c&cursor=/.test(url),
          url,
        ).to.equal(true);
      }

      const expected = Array.from({ length: 30 }, (_, i) => i + 1).filter((id) =>
        [0, 2].includes(id % 5),
      );
      expect(seen).to.deep.equal(expected.map((id) => `p${id}`));
      expect(await api().names('?tags=')).to.deep.equal(['p4', 'p9', 'p14', 'p19', 'p24', 'p29']);
      expect(await api().names('?tags=fern&tags=fern&limit=2')).to.deep.equal(['p1', 'p6']);
      expect(await api().names('?tags=none')).to.deep.equal([]);
    });

    it('when the other tenant lists, then it sees only its own plants', async () => {
      await api().create('1', 'mine');
      await api().create('1', 'theirs', undefined, 'other');

      expect(await api().names('', 'other')).to.deep.equal(['theirs']);
      expect(await api().names()).to.deep.equal(['mine']);
    });

    it('when HEAD /plants is asked, then 200 without a body', async () => {
      const response = await api().request('HEAD', '/plants');

      expect(response.status).to.equal(200);
      expect(response.text).to.equal('');
    });
  });
}
