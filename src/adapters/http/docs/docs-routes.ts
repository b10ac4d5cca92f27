import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import { Router } from '@koa/router';
import { DOCS_SCRIPT, DOCS_STYLE, FAVICON_SVG } from './docs-client.js';
import { openApiDocument } from './openapi.js';

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
const require = createRequire(import.meta.url);
const packageFile = (specifier: string) => () => readFileSync(require.resolve(specifier));

// The files of the page: the pinned packages' own (swagger-ui-dist, lossless-json's browser
// build) and ours.
const SOURCES = {
  'swagger-ui-bundle.js': { type: JS, read: packageFile('swagger-ui-dist/swagger-ui-bundle.js') },
  'swagger-ui.css': { type: CSS, read: packageFile('swagger-ui-dist/swagger-ui.css') },
  'lossless-json.js': { type: JS, read: packageFile('lossless-json') },
  'docs.js': { type: JS, read: () => Buffer.from(DOCS_SCRIPT) },
  'docs.css': { type: CSS, read: () => Buffer.from(DOCS_STYLE) },
  'favicon.svg': { type: 'image/svg+xml', read: () => Buffer.from(FAVICON_SVG) },
} as const;
type AssetName = keyof typeof SOURCES;

const loaded = new Map<AssetName, { body: Buffer; hash: string; gzip?: Buffer }>();
/** A file of the page, read when first asked for; `hash` is its ETag and the version in its URL. */
function docsAsset(name: AssetName) {
  let asset = loaded.get(name);
  if (asset === undefined) {
    const body = SOURCES[name].read();
    asset = { body, hash: createHash('sha256').update(body).digest('base64url').slice(0, 16) };
    loaded.set(name, asset);
  }
  return asset;
}

/**
 * Only the service's own origin: scripts, styles, requests and icons. `data:` images are the
 * icons embedded in Swagger UI's stylesheet; nothing on the page is inline script or style.
 */
const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

// Relative to /docs, so the page also works where a host mounts the app under a prefix.
const asset = (name: AssetName): string => `docs/assets/${name}?v=${docsAsset(name).hash}`;

/** Without JavaScript the page still names every operation and links the document. */
function operationList(): string {
  return Object.entries(openApiDocument.paths)
    .flatMap(([path, methods]) =>
      Object.entries(methods).map(
        ([method, op]) =>
          `<li><code>${method.toUpperCase()} ${escapeHtml(path)}</code>: ${escapeHtml(op.summary)}</li>`,
      ),
    )
    .join('');
}

/** The interactive API reference: Swagger UI on /openapi.json, every file served by the service. */
function docsPage(): string {
  const title = `${openApiDocument.info.title} API reference`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" type="image/svg+xml" href="${asset('favicon.svg')}">
<link rel="stylesheet" href="${asset('swagger-ui.css')}">
<link rel="stylesheet" href="${asset('docs.css')}">
</head>
<body>
<div id="docs" data-openapi="openapi.json"></div>
<noscript><h1>${escapeHtml(title)}</h1><p>The interactive reference needs JavaScript.
The operations are below; <a href="openapi.json">openapi.json</a> describes them fully.</p>
<ul>${operationList()}</ul></noscript>
<script src="${asset('lossless-json.js')}"></script>
<script src="${asset('swagger-ui-bundle.js')}"></script>
<script src="${asset('docs.js')}"></script>
</body>
</html>
`;
}

let page: string | undefined;

/** GET /docs (the interactive reference) and the files it loads, all from this service. */
export function docsRoutes(): Router {
  const router = new Router();
  router.get('/docs', (ctx) => {
    // The page's URLs are relative to /docs; /docs/ (which the router also matches) would break them.
    if (ctx.path.endsWith('/')) return ctx.redirect('../docs');
    page ??= docsPage();
    ctx.set({ 'Content-Security-Policy': DOCS_CSP, 'Cache-Control': 'no-cache' });
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page;
  });
  for (const name of Object.keys(SOURCES) as AssetName[]) {
    router.get(`/docs/assets/${name}`, (ctx) => {
      const asset = docsAsset(name);
      const zipped = ctx.acceptsEncodings('gzip', 'identity') === 'gzip';
      ctx.vary('Accept-Encoding');
      ctx.set('X-Content-Type-Options', 'nosniff');
      // A URL with the current digest never changes (a year); any other is revalidated by its ETag.
      const immutable = ctx.query.v === asset.hash;
      ctx.set('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
      ctx.etag = zipped ? `${asset.hash}-gzip` : asset.hash;
      ctx.type = SOURCES[name].type;
      ctx.status = 200;
      if (ctx.fresh) return void (ctx.status = 304);
      if (zipped) ctx.set('Content-Encoding', 'gzip');
      ctx.body = zipped ? (asset.gzip ??= gzipSync(asset.body)) : asset.body;
    });
  }
  return router;
}
