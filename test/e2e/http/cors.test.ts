import { expect } from 'chai';
import { send, type HttpResponse } from '../../support/http-client.js';
import { Api, expectError } from '../../support/http-harness.js';

const PAGE = 'http://localhost:5173';
const OTHER = 'http://localhost:5174';

/** The CORS headers of an answer, by lower-case name. */
const corsHeaders = (response: HttpResponse) =>
  Object.fromEntries(
    Object.entries(response.headers).filter(([name]) => name.startsWith('access-control-')),
  );

const EXPOSED = 'Link,Retry-After,WWW-Authenticate,X-Request-Id';

describe('CORS (PLANT_STORE_CORS_ORIGINS)', () => {
  let api: Api;

  before(async () => {
    api = await Api.start({ kind: 'memory' }, { corsOrigins: [PAGE, 'https://app.example'] });
  });
  after(async () => api?.close());
  beforeEach(() => api.newTenants());

  /** A request from a page of `origin`, with the token of `as` unless null. */
  const fromPage = (
    method: string,
    path: string,
    {
      origin = PAGE,
      as = 'both' as 'both' | 'read' | null,
      headers = [] as [string, string][],
    } = {},
  ) =>
    send(api.port, method, path, {
      headers: [
        ['Origin', origin],
        ...(as === null ? [] : [['Authorization', `Bearer ${api.tokens[as]}`] as [string, string]]),
        ...headers,
      ],
    });

  const preflight = (path: string, origin = PAGE, method = 'POST') =>
    fromPage('OPTIONS', path, {
      origin,
      as: null,
      headers: [
        ['Access-Control-Request-Method', method],
        ['Access-Control-Request-Headers', 'authorization,content-type'],
      ],
    });

  it('when an allowed origin lists plants, then the 200 allows that origin, exposes Link and the error headers, and varies on Origin', async () => {
    for (const id of [1, 2]) await api.create(String(id), `p${id}`, 'fern');

    const response = await fromPage('GET', '/plants?limit=1&tags=fern');

    expect(response.status, response.text).to.equal(200);
    expect(corsHeaders(response)).to.deep.equal({
      'access-control-allow-origin': PAGE,
      'access-control-expose-headers': EXPOSED,
    });
    expect(response.headers.link).to.include('tags=fern');
    expect(response.headers.vary).to.match(/\bOrigin\b/);
  });

  it('when refusals are answered to an allowed origin (401, 403, 404, 405, 400), then each carries the CORS headers', async () => {
    const answers: [string, number, number, Promise<HttpResponse>][] = [
      ['no token', 401, 40101, fromPage('GET', '/plants', { as: null })],
      ['read-only delete', 403, 40301, fromPage('DELETE', '/plants/1', { as: 'read' })],
      ['no such plant', 404, 40401, fromPage('GET', '/plants/7')],
      ['no route', 404, 40402, fromPage('GET', '/nowhere')],
      ['wrong method', 405, 40501, fromPage('PUT', '/plants')],
      ['bad tags', 400, 40003, fromPage('GET', `/plants?tags=${'x'.repeat(65)}`)],
    ];
    for (const [what, status, code, answer] of answers) {
      const response = await answer;
      expectError(response, status, code);
      expect(corsHeaders(response), what).to.deep.equal({
        'access-control-allow-origin': PAGE,
        'access-control-expose-headers': EXPOSED,
      });
    }
    expect((await answers[0]![3]).headers['www-authenticate']).to.match(/^Bearer/);
  });

  it('when the tenant is over its rate limit, then the 429 carries the CORS headers and Retry-After', async () => {
    await api.restartWith({ rateLimit: 1 });
    try {
      // One request a second: of requests sent at once, all but the first of a window get 429.
      let limited: HttpResponse | undefined;
      for (let i = 0; i < 10 && limited === undefined; i++) {
        const responses = await Promise.all([1, 2, 3].map(() => fromPage('GET', '/plants')));
        limited = responses.find((response) => response.status === 429);
      }
      expectError(limited!, 429, 42901);
      expect(corsHeaders(limited!)).to.deep.equal({
        'access-control-allow-origin': PAGE,
        'access-control-expose-headers': EXPOSED,
      });
      expect(limited!.headers['retry-after']).to.equal('1');
    } finally {
      await api.restartWith({ rateLimit: 0 });
    }
  });

  it('when an allowed origin sends a preflight, then 204 names the methods and headers the API takes', async () => {
    for (const path of ['/plants', '/plants/9007199254740993']) {
      const response = await preflight(path);

      expect(response.status, path).to.equal(204);
      expect(corsHeaders(response), path).to.deep.equal({
        'access-control-allow-origin': PAGE,
        'access-control-allow-methods': 'GET,HEAD,POST,DELETE',
        'access-control-allow-headers': 'Authorization,Content-Type,X-Request-Id',
        'access-control-max-age': '600',
      });
      expect(response.text).to.equal('');
    }
  });

  it('when another origin calls or sends a preflight, then no answer carries a CORS header (the preflight meets the 405)', async () => {
    const get = await fromPage('GET', '/plants', { origin: OTHER });
    const unauthorized = await fromPage('GET', '/plants', { origin: OTHER, as: null });
    const refused = await preflight('/plants', OTHER);

    expect([get.status, unauthorized.status]).to.deep.equal([200, 401]);
    expectError(refused, 405, 40501);
    for (const response of [get, unauthorized, refused]) {
      expect(corsHeaders(response)).to.deep.equal({});
    }
  });

  it('when a file of /docs is fetched from an allowed origin, then Vary names both Origin and Accept-Encoding', async () => {
    const page = await fromPage('GET', '/docs', { as: null });
    const style = /href="(docs\/assets\/docs\.css[^"]*)"/.exec(page.text)?.[1];
    const response = await fromPage('GET', `/${style}`, { as: null });

    expect(response.status).to.equal(200);
    expect(response.headers['access-control-allow-origin']).to.equal(PAGE);
    expect(String(response.headers.vary).split(/, */).sort()).to.deep.equal([
      'Accept-Encoding',
      'Origin',
    ]);
  });

  it('when a request has no Origin (not from a page), then it is answered as without CORS', async () => {
    const response = await api.request('GET', '/plants');
    expect(response.status).to.equal(200);
    expect(corsHeaders(response)).to.deep.equal({});
  });

  describe('with PLANT_STORE_CORS_ORIGINS=*', () => {
    before(() => api.restartWith({ corsOrigins: '*' }));
    after(() => api.restartWith({ corsOrigins: [PAGE] }));

    it('when any origin calls or sends a preflight, then the answers allow any origin (*)', async () => {
      const get = await fromPage('GET', '/plants', { origin: OTHER });
      const unauthorized = await fromPage('GET', '/plants', {
        origin: 'https://x.example',
        as: null,
      });
      const answered = await preflight('/plants', OTHER, 'DELETE');

      expect([get.status, unauthorized.status, answered.status]).to.deep.equal([200, 401, 204]);
      for (const response of [get, unauthorized, answered]) {
        expect(response.headers['access-control-allow-origin']).to.equal('*');
      }
    });
  });

  describe('without PLANT_STORE_CORS_ORIGINS', () => {
    let plain: Api;
    before(async () => {
      plain = await Api.start({ kind: 'memory' });
    });
    after(async () => plain?.close());

    it('when a preflight is sent, then OPTIONS keeps its 405 with Allow and no CORS header', async () => {
      const origin: [string, string] = ['Origin', PAGE];
      const refused = await send(plain.port, 'OPTIONS', '/plants', {
        headers: [origin, ['Access-Control-Request-Method', 'GET']],
      });
      const get = await plain.request('GET', '/plants', { headers: [origin] });

      expectError(refused, 405, 40501);
      expect(refused.headers.allow).to.equal('POST, HEAD, GET');
      expect(get.status).to.equal(200);
      for (const response of [refused, get]) expect(corsHeaders(response)).to.deep.equal({});
    });
  });
});
