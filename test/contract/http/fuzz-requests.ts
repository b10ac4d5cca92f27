import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';

/** A generated request: what the checks need to know, and its bytes. */
export interface FuzzRequest {
  method: string;
  /** The request target as sent (origin-form, absolute-form or `*`). */
  target: string;
  bytes: Buffer;
  /**
   * When the head alone decides the answer (two Host headers, an Expect other than 100-continue
   * alone), the statuses it may get: that refusal, or one the parser or a timeout gives first.
   */
  refusedWith?: readonly number[];
}

/** What the parser or a timeout may answer before any refusal by the head. */
const EARLIER = [400, 408, 431];

const printable = fc.stringMatching(/^[\x20-\x7e]{0,40}$/);
const tokenChars = fc.stringMatching(/^[A-Za-z0-9._~+/-]{1,60}=?$/);

// Small ids come again, so that creates meet duplicates and deletes find plants.
const int64 = fc.oneof(
  { arbitrary: fc.integer({ min: 1, max: 40 }).map(String), weight: 3 },
  { arbitrary: fc.bigInt(-(2n ** 63n), 2n ** 63n - 1n).map(String), weight: 1 },
);
const idText = fc.oneof(
  int64,
  fc.bigInt().map(String),
  fc.constantFrom(
    '-0',
    '01',
    '1e3',
    '1.0',
    'abc',
    '%31',
    '9223372036854775808',
    '-9223372036854775809',
  ),
  fc.webSegment(),
);
const pathArb = fc.oneof(
  { arbitrary: fc.constant('/plants'), weight: 8 },
  { arbitrary: idText.map((id) => `/plants/${id}`), weight: 4 },
  {
    arbitrary: fc.constantFrom('/plants/', '/PLANTS', '//plants', '/plants/../plants', '/healthz'),
    weight: 1,
  },
  { arbitrary: fc.constantFrom('/readyz', '/openapi.json', '/docs', '/', '/nope', '*'), weight: 1 },
  { arbitrary: fc.webPath().map((path) => (path.startsWith('/') ? path : `/${path}`)), weight: 1 },
);
const methodArb = fc.oneof(
  { arbitrary: fc.constantFrom('GET', 'POST', 'DELETE'), weight: 6 },
  {
    arbitrary: fc.constantFrom('HEAD', 'PUT', 'PATCH', 'OPTIONS', 'TRACE', 'FOO', 'get'),
    weight: 1,
  },
);
/** Mostly `common`, sometimes `rare`, now and then absent. */
const mostly = <T>(common: fc.Arbitrary<T>, rare: fc.Arbitrary<T>) =>
  fc.oneof(
    { arbitrary: common, weight: 6 },
    { arbitrary: rare, weight: 2 },
    { arbitrary: fc.constant(undefined), weight: 2 },
  );
const queryValue = fc.oneof(
  fc.nat().map(String),
  fc.constantFrom('-1', '1001', '2147483647', '2147483648', '01', '1.0', '', 'MQ', 'MTox'),
  fc.base64String({ maxLength: 44 }).map(encodeURIComponent),
  fc.string().map(encodeURIComponent),
);
const queryArb = fc.oneof(
  fc.constant(''),
  fc
    .array(fc.tuple(fc.constantFrom('limit', 'cursor', 'x', 'li%6dit'), queryValue), {
      maxLength: 3,
    })
    .map((pairs) => `?${pairs.map(([name, value]) => `${name}=${value}`).join('&')}`),
  fc.webQueryParameters().map((query) => `?${query}`),
);

const plantJson = fc
  .record({
    id: fc.oneof(
      int64,
      fc.constantFrom('1.0', '1e2', '-0', '1.5', '"1"', 'null', '99999999999999999999'),
    ),
    name: fc.option(fc.string({ unit: 'binary', maxLength: 300 }), { nil: undefined }),
    tag: fc.option(fc.string({ unit: 'binary', maxLength: 80 }), { nil: undefined }),
  })
  .map(({ id, name, tag }) => {
    const fields = [`"id":${id}`];
    if (name !== undefined) fields.push(`"name":${JSON.stringify(name)}`);
    if (tag !== undefined) fields.push(`"tag":${JSON.stringify(tag)}`);
    return `{${fields.join(',')}}`;
  });
const bodyArb = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 2 },
  { arbitrary: plantJson.map((text) => Buffer.from(text)), weight: 4 },
  { arbitrary: fc.json().map((text) => Buffer.from(text)), weight: 1 },
  { arbitrary: fc.string({ unit: 'binary' }).map((text) => Buffer.from(text)), weight: 1 },
  { arbitrary: fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)), weight: 1 },
  {
    // Over the limit: as sent, or only once decoded (zeros compress well).
    arbitrary: fc
      .integer({ min: 65_000, max: 70_000 })
      .map((size) => Buffer.from(`{"id":1,"name":"${'a'.repeat(size)}"}`)),
    weight: 1,
  },
);

const CODERS: Record<string, (bytes: Buffer) => Buffer> = {
  gzip: gzipSync,
  deflate: deflateSync,
  br: brotliCompressSync,
};

/** Requests of every shape: valid and invalid methods, targets, headers, bodies and encodings. */
export function fuzzRequests(tokens: { both: string; read: string }): fc.Arbitrary<FuzzRequest> {
  const authorization = mostly(
    fc.constantFrom(`Bearer ${tokens.both}`, `Bearer ${tokens.both}`, `Bearer ${tokens.read}`),
    fc.oneof(
      fc.constantFrom(`bearer  ${tokens.both}`, 'Bearer', 'Basic dXNlcjpwYXNz', 'Bearer a b'),
      fc.constantFrom('Bearer pst_0123456789abcdef_x'),
      tokenChars.map((token) => `Bearer ${token}`),
      printable,
    ),
  );
  return fc
    .record({
      route: fc.oneof(
        { arbitrary: fc.tuple(fc.constantFrom('GET', 'POST'), fc.constant('/plants')), weight: 6 },
        {
          arbitrary: fc.tuple(
            fc.constant('DELETE'),
            idText.map((id) => `/plants/${id}`),
          ),
          weight: 3,
        },
        { arbitrary: fc.tuple(methodArb, pathArb), weight: 3 },
      ),
      query: queryArb,
      absolute: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
      version: fc.constantFrom('1.1', '1.1', '1.1', '1.0'),
      // How many Host headers: mostly one, now and then none or two (the same value or not).
      hosts: fc.constantFrom(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 2, 3),
      authorization,
      contentType: mostly(
        fc.constantFrom('application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON'),
        fc.oneof(
          fc.constantFrom('text/plain', 'application/json; charset=latin1', 'application/json;'),
          printable,
        ),
      ),
      coding: fc.oneof(
        { arbitrary: fc.constant(undefined), weight: 6 },
        {
          arbitrary: fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'GZIP', ' gzip '),
          weight: 3,
        },
        {
          arbitrary: fc.oneof(fc.constantFrom('compress', 'gzip, gzip', 'x-gzip'), printable),
          weight: 1,
        },
      ),
      encodeBody: fc.integer({ min: 0, max: 4 }).map((n) => n !== 0),
      expect: fc.oneof(
        { arbitrary: fc.constant(undefined), weight: 16 },
        { arbitrary: fc.constant('100-continue'), weight: 2 },
        {
          // 100-continue among other expectations, or in another case (which RFC 9110 allows).
          arbitrary: fc.constantFrom(
            '100-continue, foo',
            'foo, 100-continue',
            '100-continue,100-continue',
            '100-Continue',
            ' 100-CONTINUE ',
            '100-continue;x=1',
          ),
          weight: 1,
        },
        { arbitrary: printable, weight: 1 },
      ),
      extra: fc.array(fc.tuple(fc.stringMatching(/^[A-Za-z-]{1,20}$/), printable), {
        maxLength: 3,
      }),
      chunked: fc.boolean(),
      lengthSkew: fc.constantFrom(0, 0, 0, 0, 0, 0, -1, 1),
      body: bodyArb,
    })
    .map((r) => {
      const [method, path] = r.route;
      const target =
        path === '*' ? '*' : `${r.absolute ? 'http://evil.example' : ''}${path}${r.query}`;
      const coder = CODERS[(r.coding ?? '').trim().toLowerCase()];
      const body = r.body && coder && r.encodeBody ? coder(r.body) : r.body;
      const lines = [`${method} ${target} HTTP/${r.version}`];
      if (r.hosts >= 1) lines.push('Host: 127.0.0.1');
      if (r.hosts === 2) lines.push('Host: evil.example');
      if (r.hosts === 3) lines.push('host: 127.0.0.1');
      if (r.authorization !== undefined) lines.push(`Authorization: ${r.authorization}`);
      if (r.contentType !== undefined) lines.push(`Content-Type: ${r.contentType}`);
      if (r.coding !== undefined) lines.push(`Content-Encoding: ${r.coding}`);
      if (r.expect !== undefined) lines.push(`Expect: ${r.expect}`);
      for (const [name, value] of r.extra) lines.push(`${name}: ${value}`);
      let payload: Buffer = Buffer.alloc(0);
      if (body !== undefined && r.chunked && r.version === '1.1') {
        lines.push('Transfer-Encoding: chunked');
        const size = Buffer.from(`${body.length.toString(16)}\r\n`);
        payload = Buffer.concat([size, body, Buffer.from(body.length ? '\r\n0\r\n\r\n' : '\r\n')]);
      } else if (body !== undefined) {
        lines.push(`Content-Length: ${Math.max(0, body.length + r.lengthSkew)}`);
        payload = body;
      }
      lines.push('Connection: close');
      const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
      // An HTTP/1.0 request's Expect is ignored (RFC 9110, 10.1.1); an unmet one in HTTP/1.1 is
      // refused before the request reaches the Host check.
      const badExpect =
        r.version === '1.1' &&
        r.expect !== undefined &&
        r.expect.trim().toLowerCase() !== '100-continue';
      const refusedWith = badExpect ? [417, ...EARLIER] : r.hosts >= 2 ? EARLIER : undefined;
      return {
        method,
        target,
        bytes: Buffer.concat([head, payload]),
        ...(refusedWith && { refusedWith }),
      };
    });
}
