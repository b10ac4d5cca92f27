import { Router } from '@koa/router';
import type { Context } from 'koa';
import { DOCS_ASSET_NAMES, docsAsset, type DocsAssetName } from './docs-assets.js';
import { DOCS_CSP, docsPage } from './docs-page.js';

const YEAR_SECONDS = 365 * 24 * 60 * 60;

let page: string | undefined;

function sendAsset(ctx: Context, name: DocsAssetName): void {
  const { type, body, gzip, hash } = docsAsset(name);
  const zipped = ctx.acceptsEncodings('gzip', 'identity') === 'gzip';
  ctx.vary('Accept-Encoding');
  ctx.set('X-Content-Type-Options', 'nosniff');
  // A URL with the current digest never changes; any other is revalidated through the ETag.
  ctx.set(
    'Cache-Control',
    ctx.query.v === hash ? `public, max-age=${YEAR_SECONDS}, immutable` : 'no-cache',
  );
  ctx.etag = zipped ? `${hash}-gzip` : hash;
  ctx.type = type;
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  if (zipped) ctx.set('Content-Encoding', 'gzip');
  ctx.body = zipped ? gzip() : body;
}

/** GET /docs (the interactive reference) and the files it loads, all from this service. */
export function docsRoutes(): Router {
  const router = new Router();
  router.get('/docs', (ctx) => {
    // The page's URLs are relative to /docs; /docs/ (which the router also matches) would break them.
    if (ctx.path.endsWith('/')) return ctx.redirect('../docs');
    page ??= docsPage();
    ctx.set('Content-Security-Policy', DOCS_CSP);
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page;
  });
  for (const name of DOCS_ASSET_NAMES) {
    router.get(`/docs/assets/${name}`, (ctx) => sendAsset(ctx, name));
  }
  return router;
}
