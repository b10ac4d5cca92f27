// One link-value of RFC 8288: <target> followed by its ;-separated parameters.
const LINK_VALUE = /<([^>]*)>((?:\s*;\s*[^;,="\s]+\s*(?:=\s*(?:"[^"]*"|[^;,"\s]*))?)*)/g;
const REL = /;\s*rel\s*=\s*(?:"([^"]*)"|([^;,\s]+))/i;

/** The target of `rel="next"` in a Link header, resolved against the request's URL. */
export function nextLink(header: string | null, requestUrl: URL): URL | undefined {
  if (header === null) return undefined;
  for (const [, target = '', params = ''] of header.matchAll(LINK_VALUE)) {
    const rel = REL.exec(params);
    const relations = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (relations.includes('next')) return new URL(target, requestUrl);
  }
  return undefined;
}
