import { docsAsset, type DocsAssetName } from './docs-assets.js';
import { openApiDocument } from './openapi.js';

/**
 * Only the service's own origin: scripts, styles, requests and icons. `data:` images are the
 * icons embedded in Swagger UI's stylesheet; nothing on the page is inline script or style.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

// Relative to /docs, so the page also works where a host mounts the app under a prefix.
const asset = (name: DocsAssetName): string => `docs/assets/${name}?v=${docsAsset(name).hash}`;

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
export function docsPage(): string {
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
