import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import { DOCS_SCRIPT, DOCS_STYLE, FAVICON_SVG } from './docs-client.js';

/** One file of the /docs page, served from memory. */
export interface DocsAsset {
  readonly type: string;
  readonly body: Buffer;
  /** Built on the first request that accepts gzip. */
  readonly gzip: () => Buffer;
  /** A digest of the content: the asset's ETag and the version in its URL. */
  readonly hash: string;
}

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
const require = createRequire(import.meta.url);
const packageFile = (specifier: string) => () => readFileSync(require.resolve(specifier));

// The pinned packages' own files (swagger-ui-dist, lossless-json's browser build) and ours.
const SOURCES = {
  'swagger-ui-bundle.js': { type: JS, read: packageFile('swagger-ui-dist/swagger-ui-bundle.js') },
  'swagger-ui.css': { type: CSS, read: packageFile('swagger-ui-dist/swagger-ui.css') },
  'lossless-json.js': { type: JS, read: packageFile('lossless-json') },
  'docs.js': { type: JS, read: () => Buffer.from(DOCS_SCRIPT) },
  'docs.css': { type: CSS, read: () => Buffer.from(DOCS_STYLE) },
  'favicon.svg': { type: 'image/svg+xml', read: () => Buffer.from(FAVICON_SVG) },
} as const;

export type DocsAssetName = keyof typeof SOURCES;

export const DOCS_ASSET_NAMES = Object.keys(SOURCES) as DocsAssetName[];

const loaded = new Map<DocsAssetName, DocsAsset>();

/** The asset, read from disk the first time it is asked for (files of pinned packages do not change). */
export function docsAsset(name: DocsAssetName): DocsAsset {
  let asset = loaded.get(name);
  if (asset === undefined) {
    const { type, read } = SOURCES[name];
    const body = read();
    let gzip: Buffer | undefined;
    asset = {
      type,
      body,
      gzip: () => (gzip ??= gzipSync(body)),
      hash: createHash('sha256').update(body).digest('base64url').slice(0, 16),
    };
    loaded.set(name, asset);
  }
  return asset;
}
