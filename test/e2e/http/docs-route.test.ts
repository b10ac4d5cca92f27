import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'chai';
import {
  createHttpApp,
  createLogger,
  MemoryPlantStore,
  PlantService,
  StaticTokenVerifier,
} from '../../../src/index.js';
import { send } from '../../support/http-client.js';

type Body = {
  description?: string;
  content?: Record<string, { examples?: Record<string, { value: unknown }> }>;
};
type Operation = {
  tags: string[];
  parameters?: { name: string; description?: string }[];
  requestBody?: Body;
  responses: Record<string, Body>;
};

const pointer = (...parts: string[]) =>
  parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** The library's HTTP app on loopback, as a host program would mount it. */
async function serve(docs?: boolean): Promise<{ server: Server; base: string; port: number }> {
  const store = new MemoryPlantStore();
  const app = createHttpApp({
    plants: new PlantService(store),
    tokenVerifier: new StaticTokenVerifier([]),
    readiness: [{ name: 'plants', ping: () => store.ping() }],
    logger: createLogger('silent'),
    ...(docs !== undefined && { docs }),
  });
  const server = createServer(app.callback()).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return { server, base: `http://127.0.0.1:${port}`, port };
}

describe('the /docs route and its files', () => {
  let server: Server;
  let base: string;
  let port: number;
  before(async () => ({ server, base, port } = await serve()));
  after(() => server.close());

  it('when /docs is fetched, then it is HTML whose CSP allows only its own origin, without inline code', async () => {
    const response = await fetch(`${base}/docs`);
    const csp = response.headers.get('content-security-policy')!;

    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(csp).to.include("default-src 'none'").and.include("script-src 'self'");
    expect(csp).to.not.match(/unsafe|https?:|\*/);
    expect(await response.text()).to.not.match(/<script>|<style>| style=/);
  });

  it('when every file the page names is fetched, then each is served with its type and cached for good', async () => {
    const html = await (await fetch(`${base}/docs`)).text();
    const urls = [...html.matchAll(/(?:src|href)="(docs\/assets\/[^"]+)"/g)].map((m) => m[1]!);

    expect(urls).to.have.lengthOf(6);
    for (const url of urls) {
      const response = await fetch(new URL(url, `${base}/docs`));
      const type = response.headers.get('content-type')!;
      expect(response.status, url).to.equal(200);
      expect(type, url).to.match(/^(text\/javascript|text\/css|image\/svg\+xml)/);
      expect(response.headers.get('cache-control'), url).to.include('immutable');
      expect(response.headers.get('x-content-type-options'), url).to.equal('nosniff');
      expect((await response.arrayBuffer()).byteLength, url).to.be.greaterThan(100);
    }
  });

  it('when a file is asked for with gzip and then revalidated, then it comes compressed and then as 304', async () => {
    const url = `${base}/docs/assets/swagger-ui-bundle.js`;
    const plain = await fetch(url, { headers: { 'Accept-Encoding': 'identity' } });
    const zipped = await fetch(url, { headers: { 'Accept-Encoding': 'gzip' } });
    // fetch() would add Cache-Control: no-cache to a conditional request, which rightly forbids a 304.
    const again = await send(port, 'GET', '/docs/assets/swagger-ui-bundle.js', {
      headers: [
        ['Accept-Encoding', 'gzip'],
        ['If-None-Match', zipped.headers.get('etag')!],
      ],
    });

    expect(plain.headers.get('content-encoding')).to.equal(null);
    expect(zipped.headers.get('content-encoding')).to.equal('gzip');
    expect(Number(zipped.headers.get('content-length'))).to.be.lessThan(
      Number(plain.headers.get('content-length')) / 2,
    );
    expect(await zipped.text()).to.equal(await plain.text());
    expect(again.status).to.equal(304);
  });

  it('when /openapi.json is read, then parameters are described and each example, an id above 2^53 and every error code named included, fits its schema', async () => {
    const text = await (await fetch(`${base}/openapi.json`)).text();
    const document = JSON.parse(text) as { paths: Record<string, Record<string, Operation>> };
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema(document, 'openapi');
    let checked = 0;

    expect(text).to.include('"id":9007199254740993,');
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        const where = `${method.toUpperCase()} ${path}`;
        expect(String(op.tags), where).to.be.oneOf(['plants', 'operations']);
        for (const { name, description } of op.parameters ?? []) {
          expect(description, `${where} ${name}`).to.be.a('string');
        }
        const bodies = Object.entries(op.responses).map(([status, r]) => [status, r] as const);
        for (const [at, body] of [...bodies, ['requestBody', op.requestBody] as const]) {
          const examples = Object.values(body?.content?.['application/json']?.examples ?? {});
          // JSON bodies only: /metrics answers the Prometheus text format.
          if (body?.content?.['application/json'] === undefined) continue;
          expect(examples.length, `${where} ${at}: examples`).to.be.greaterThan(0);
          if (Number(at) >= 400) {
            const named = body.description!.match(new RegExp(`\\b${at}\\d\\d\\b`, 'g'));
            const given = examples.map((e) => String((e.value as { error: number }).error));
            expect(given, `${where} ${at}`).to.include.members(named ?? []);
          }
          const schema = pointer(
            'paths',
            path,
            method,
            ...(at === 'requestBody' ? [at] : ['responses', at]),
            'content',
            'application/json',
            'schema',
          );
          const validate = ajv.getSchema(`openapi#/${schema}`)!;
          for (const { value } of examples) {
            expect(validate(value), `${where} ${at}: ${JSON.stringify(value)}`).to.equal(true);
            checked++;
          }
        }
      }
    }
    expect(checked).to.be.greaterThan(20);
  });

  it('when /docs/ is asked for, then it redirects to /docs, where the relative URLs resolve', async () => {
    const response = await fetch(`${base}/docs/`, { redirect: 'manual' });

    expect(response.status).to.equal(302);
    expect(new URL(response.headers.get('location')!, `${base}/docs/`).pathname).to.equal('/docs');
  });

  it('when the app is built with docs off, then /docs and its files answer 404 with the Error body', async () => {
    const off = await serve(false);
    try {
      for (const path of ['/docs', '/docs/assets/swagger-ui-bundle.js']) {
        const response = await fetch(`${off.base}${path}`);
        expect(response.status, path).to.equal(404);
        expect(await response.json(), path).to.deep.include({ error: 40402 });
      }
      expect((await fetch(`${off.base}/openapi.json`)).status).to.equal(200);
    } finally {
      off.server.close();
    }
  });
});
