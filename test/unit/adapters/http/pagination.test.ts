import { expect } from 'chai';
import { pageParams } from '../../../../src/adapters/http/pagination.js';

/** What Koa's ctx.query holds for a name: URLSearchParams, one value or every value. */
function koaQuery(querystring: string, name: string): string | string[] | undefined {
  const values = new URLSearchParams(querystring).getAll(name);
  return values.length <= 1 ? values[0] : values;
}

describe('pageParams', () => {
  const cases = [
    '',
    'limit=20',
    'limit=20&limit=30',
    'limit',
    'limit=',
    '%6cimit=5',
    'li+mit=5',
    'limit=a+b',
    'limit=%zz',
    'limit=%41',
    '&&limit=1&&',
    'x=1&limit=2&cursor=abc',
    'limit=1=2',
    'cursor=a&cursor=b&cursor=c',
    'limit=%',
    '=x',
    'LIMIT=2',
    'limit=%E2%82%AC',
    'limit=%C3',
    'cursor=x&limit=3&limit',
    '&',
    'limit=4&',
    'a=b=c&limit=1',
    'tags=aroid',
    'tags=a&tags=b&tags=',
    'tags=a+b%26c&limit=2&tags=%F0%9F%8C%B1',
    'tags',
  ];
  for (const querystring of cases) {
    it(`when the query string is "${querystring}", then limit, cursor and tags read as Koa's ctx.query has them`, () => {
      const params = pageParams(querystring);
      for (const name of ['limit', 'cursor', 'tags'] as const) {
        expect(params[name]).to.deep.equal(koaQuery(querystring, name));
      }
    });
  }
});
