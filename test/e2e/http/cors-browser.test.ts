import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { expect } from 'chai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { serverMissing } from '../../support/server-requirement.js';
import { startService, type ServiceProcess } from '../../support/service-process.js';

// Debian's chromium (scripts/install-chromium.sh), as in docs-browser.test.ts.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const TOKEN = 'cors-browser-token-0123456789';

/**
 * The page's own script: `call` sends one request to the service with fetch and resolves what a
 * page can read of the answer (status, body and the exposed headers); a refused fetch rejects.
 */
const PAGE_SCRIPT = (service: string) => `
const SERVICE = ${JSON.stringify(service)};
window.call = async (method, path, { token, body } = {}) => {
  const headers = {};
  if (token !== undefined) headers.Authorization = 'Bearer ' + token;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(new URL(path, SERVICE), { method, headers, body });
  const read = (name) => response.headers.get(name);
  return {
    status: response.status,
    text: await response.text(),
    link: read('Link'),
    wwwAuthenticate: read('WWW-Authenticate'),
    requestId: read('X-Request-Id'),
  };
};
// Every plant of the query, following each Link rel="next" (relative to the service) as given.
window.listAll = async (path, token) => {
  const names = [];
  let pages = 0;
  for (let next = path; next !== undefined; pages++) {
    const answer = await call('GET', next, { token });
    if (answer.status !== 200) throw new Error(answer.status + ' ' + answer.text);
    names.push(...JSON.parse(answer.text).map((plant) => plant.name));
    next = /^<([^>]*)>; rel="next"$/.exec(answer.link ?? '')?.[1];
  }
  return { names, pages };
};
window.failureOf = (method, path, options) =>
  call(method, path, options).then(
    (answer) => 'answered ' + answer.status,
    (error) => error.name + ': ' + error.message,
  );
`;

/** A tiny site on loopback whose one page carries PAGE_SCRIPT for `service`. */
async function pageServer(service: () => string): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    if (req.url !== '/') return void res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>caller</title><script>${PAGE_SCRIPT(service())}</script>`);
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as { port: number }).port };
}

// A page on http://localhost:P (allowed) and one on http://localhost:R (not allowed) call the
// service on http://127.0.0.1:Q: another origin, so Chromium applies CORS to every call.
describe('CORS in a real browser: a page on another origin calls the service', function () {
  // Each step takes well under a second on an idle machine; the margin is for a busy one.
  this.timeout(60_000);
  let service: ServiceProcess | undefined;
  let browser: Browser | undefined;
  const sites: Server[] = [];
  let allowed: Page;
  let refused: Page;

  /** Runs `expression` (page code as text: the tests have no DOM types) in `page`. */
  const inPage = <T>(page: Page, expression: string) => page.evaluate<T>(expression);
  const call = (page: Page, method: string, path: string, options: object = {}) =>
    inPage<{ status: number; text: string; link: string | null; wwwAuthenticate: string | null }>(
      page,
      `call(${JSON.stringify(method)}, ${JSON.stringify(path)}, ${JSON.stringify(options)})`,
    );

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      serverMissing(this, 'Chromium', `${CHROMIUM} not found (scripts/install-chromium.sh)`);
    }
    const serviceOrigin = () => `http://127.0.0.1:${service!.port}`;
    const [good, bad] = await Promise.all([pageServer(serviceOrigin), pageServer(serviceOrigin)]);
    sites.push(good.server, bad.server);
    [service, browser] = await Promise.all([
      startService({
        PLANT_STORE_STORAGE: 'memory',
        PLANT_STORE_CORS_ORIGINS: `https://app.example, http://localhost:${good.port}`,
        PLANT_STORE_TOKENS: JSON.stringify([
          { token: TOKEN, tenant: 'cors-browser', scopes: ['plants:read', 'plants:write'] },
        ]),
      }),
      chromium.launch({ executablePath: CHROMIUM }),
    ]);
    [allowed, refused] = await Promise.all([browser.newPage(), browser.newPage()]);
    await allowed.goto(`http://localhost:${good.port}/`);
    await refused.goto(`http://localhost:${bad.port}/`);
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
    for (const site of sites) site.close();
  });

  it('when the allowed page creates plants, lists one tag following Link, gets one and deletes it, then each call answers as the contract says', async () => {
    const created = [];
    for (const body of [
      '{"id":9007199254740993,"name":"Monstera","tag":"aroid"}',
      '{"id":2,"name":"Maidenhair","tag":"fern"}',
      '{"id":3,"name":"Philodendron","tag":"aroid"}',
    ]) {
      created.push((await call(allowed, 'POST', '/plants', { token: TOKEN, body })).status);
    }
    const listed = await inPage<{ names: string[]; pages: number }>(
      allowed,
      `listAll('/plants?tags=aroid&limit=1', ${JSON.stringify(TOKEN)})`,
    );
    const got = await call(allowed, 'GET', '/plants/9007199254740993', { token: TOKEN });
    const deleted = await call(allowed, 'DELETE', '/plants/9007199254740993', { token: TOKEN });
    const gone = await call(allowed, 'GET', '/plants/9007199254740993', { token: TOKEN });

    expect(created).to.deep.equal([200, 200, 200]);
    // Two pages of one aroid each: the filter kept in the Link the page followed.
    expect(listed).to.deep.equal({ names: ['Philodendron', 'Monstera'], pages: 2 });
    expect([got.status, JSON.parse(got.text)]).to.deep.equal([
      200,
      { name: 'Monstera', tag: 'aroid' },
    ]);
    expect(deleted.status).to.equal(204);
    expect([gone.status, JSON.parse(gone.text).error]).to.deep.equal([404, 40401]);
  });

  it('when the allowed page calls without a token, then it reads the 401 and its WWW-Authenticate', async () => {
    const answer = await call(allowed, 'GET', '/plants');

    expect(answer.status).to.equal(401);
    expect(JSON.parse(answer.text).error).to.equal(40101);
    expect(answer.wwwAuthenticate).to.match(/^Bearer realm=/);
  });

  it('when a page of an origin not allowed calls, then the browser refuses: fetch rejects, with a token (preflight) or without', async () => {
    const token = JSON.stringify({ token: TOKEN });
    const failures = await Promise.all([
      inPage<string>(refused, `failureOf('GET', '/plants', ${token})`),
      inPage<string>(refused, `failureOf('GET', '/plants')`),
      inPage<string>(
        refused,
        `failureOf('POST', '/plants', { token: ${JSON.stringify(TOKEN)}, body: '{"id":5,"name":"x"}' })`,
      ),
    ]);

    expect(failures).to.deep.equal(Array(3).fill('TypeError: Failed to fetch'));
    // The preflighted POST never reached the route: nothing was created.
    expect((await call(allowed, 'GET', '/plants/5', { token: TOKEN })).status).to.equal(404);
  });
});
