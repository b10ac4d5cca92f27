import { openApiDocument } from './openapi.js';

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A self-contained HTML page describing the API, built once from the OpenAPI document (no CDN, no scripts). */
export function docsPage(): string {
  const operations = Object.entries(openApiDocument.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const responses = Object.entries(op.responses as Record<string, { description: string }>)
        .map(([status, r]) => `<tr><td>${status}</td><td>${escapeHtml(r.description)}</td></tr>`)
        .join('');
      return `<section><h2><code>${method.toUpperCase()} ${escapeHtml(path)}</code></h2>
<p>${escapeHtml(op.summary)}. ${escapeHtml(op.description)}</p>
<table><tr><th>Status</th><th>Meaning</th></tr>${responses}</table></section>`;
    }),
  );
  const { title, version, description } = openApiDocument.info;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} API</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}</style>
</head><body><h1>${escapeHtml(title)} API ${escapeHtml(version)}</h1>
<p>${escapeHtml(description).replace(/\n\n/g, '</p><p>')}</p>
<p>Machine-readable: <a href="openapi.json">openapi.json</a> (OpenAPI 3.1).</p>
${operations.join('\n')}
</body></html>`;
}
