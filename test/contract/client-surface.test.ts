import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { toPlantId } from '../../packages/client/src/index.js';
import { parseExactJson, stringifyExactJson } from '../../packages/client/src/exact-json.js';
import { nextLink } from '../../packages/client/src/link-header.js';
import {
  parseRetryAfter,
  retryDelay,
  retryPolicy,
} from '../../packages/client/src/retry-policy.js';

const CLIENT = new URL('../../packages/client/src/', import.meta.url).pathname;

describe('plant-store/client, its parts', () => {
  describe('what it imports', () => {
    const files = readdirSync(CLIENT).filter((name) => name.endsWith('.ts'));

    it('when its sources are read, then they import only each other (nothing of Node, the server or a library)', () => {
      const specifiers = files.flatMap((name) =>
        [
          ...readFileSync(join(CLIENT, name), 'utf8').matchAll(
            /from '([^']+)'|import\('([^']+)'\)/g,
          ),
        ]
          .map((m) => (m[1] ?? m[2])!)
          .map((specifier) => `${name}: ${specifier}`),
      );
      expect(specifiers).to.have.length.above(5);
      const foreign = specifiers.filter((s) => !/: \.\/[a-z-]+\.js$/.test(s));
      expect(foreign).to.deep.equal([]);
    });

    it('when its package.json is read, then it has no dependency of any kind at run time', () => {
      const manifest = JSON.parse(readFileSync(join(CLIENT, '..', 'package.json'), 'utf8')) as {
        [field: string]: unknown;
      };
      const fields = [
        'dependencies',
        'peerDependencies',
        'optionalDependencies',
        'bundleDependencies',
      ];
      expect(fields.filter((field) => manifest[field] !== undefined)).to.deep.equal([]);
    });

    it('when its sources are read, then they use no Node global (process, Buffer, require)', () => {
      const users = files.filter((name) =>
        /\b(?:process\.|Buffer\b|require\()/.test(readFileSync(join(CLIENT, name), 'utf8')),
      );
      expect(users).to.deep.equal([]);
    });
  });

  describe('toPlantId', () => {
    it('when given a bigint in int64 or a safe integer number, then it returns the exact bigint', () => {
      expect([toPlantId(-(2n ** 63n)), toPlantId(2n ** 63n - 1n), toPlantId(-42)]).to.deep.equal([
        -(2n ** 63n),
        2n ** 63n - 1n,
        -42n,
      ]);
    });

    it('when given a number beyond 2^53 - 1, then a TypeError says to pass a bigint', () => {
      expect(() => toPlantId(2 ** 53 + 1)).to.throw(TypeError, /not a safe integer.*pass a bigint/);
      expect(() => toPlantId(1.5)).to.throw(TypeError, /pass a bigint/);
    });

    it('when given a bigint beyond int64 or another type, then it throws before anything is sent', () => {
      expect(() => toPlantId(2n ** 63n)).to.throw(RangeError, /outside int64/);
      expect(() => toPlantId('1')).to.throw(TypeError, /bigint or a safe integer/);
    });
  });

  describe('exact JSON', () => {
    it('when an id or an integer beyond 2^53 is parsed, then it is an exact bigint; other numbers stay numbers', () => {
      expect(
        parseExactJson(
          '{"id":9007199254740993,"n":[1,1.5,-12345678901234567890],"plant":{"id":7}}',
        ),
      ).to.deep.equal({
        id: 9007199254740993n,
        n: [1, 1.5, -12345678901234567890n],
        plant: { id: 7n },
      });
    });

    it('when any JSON document is parsed, then the result equals JSON.parse but for bigints', () => {
      const text =
        ' {"a" : [true,false,null, "\\u00e9\\n\\"x\\"", -0.5e-3, 1E2, {}, []],"__proto__":{"x":-0},"b":"é"} ';
      const parsed = parseExactJson(text) as Record<string, unknown>;
      expect(parsed).to.deep.equal(JSON.parse(text));
      expect(Object.getPrototypeOf(parsed)).to.equal(Object.prototype);
      expect(Object.keys(parsed)).to.deep.equal(['a', '__proto__', 'b']);
      expect(Object.getOwnPropertyDescriptor(parsed, '__proto__')?.value).to.deep.equal({ x: -0 });
    });

    it('when the text is not JSON, then it throws a SyntaxError as JSON.parse does', () => {
      for (const text of [
        '',
        '{',
        '[1,]',
        '{"a":1,}',
        '01',
        '1.',
        '"\u0001"',
        "'a'",
        '{a:1}',
        '[1] 2',
        'nul',
        '-',
      ]) {
        expect(() => JSON.parse(text), text).to.throw(SyntaxError);
        expect(() => parseExactJson(text), text).to.throw(SyntaxError);
      }
    });

    it('when a bigint is stringified, then it is written as an exact JSON integer and undefined fields are left out', () => {
      expect(stringifyExactJson({ id: -(2n ** 63n), name: 'a"b', tag: undefined })).to.equal(
        '{"id":-9223372036854775808,"name":"a\\"b"}',
      );
    });
  });

  describe('Link rel="next"', () => {
    const request = new URL('http://127.0.0.1:8080/api/plants?limit=2');

    it('when several links are given, then the one whose rel includes next is taken, resolved against the request', () => {
      const header =
        '</x>; rel="prev", </api/plants?limit=2&cursor=MTo1>; title="a, b"; rel="prev next"';
      expect(nextLink(header, request)?.href).to.equal(
        'http://127.0.0.1:8080/api/plants?limit=2&cursor=MTo1',
      );
    });

    it('when no link is next (or there is no header), then there is no next page', () => {
      expect(nextLink('</x>; rel="nextish"', request)).to.equal(undefined);
      expect(nextLink(null, request)).to.equal(undefined);
    });
  });

  describe('retry policy', () => {
    it('when Retry-After is seconds or an HTTP date, then it is read as milliseconds', () => {
      const now = Date.parse('2026-11-22T12:00:00Z');
      expect(parseRetryAfter('3', now)).to.equal(3000);
      expect(parseRetryAfter('Sun, 22 Nov 2026 12:00:02 GMT', now)).to.equal(2000);
      expect(parseRetryAfter('soon', now)).to.equal(undefined);
    });

    it('when retries are used up or Retry-After exceeds maxDelayMs, then there is no retry', () => {
      const policy = retryPolicy({ retries: 2, maxDelayMs: 1000 });
      expect(retryDelay(policy, 3, undefined)).to.equal(undefined);
      expect(retryDelay(policy, 1, 1001)).to.equal(undefined);
      expect(retryDelay(policy, 1, 1000)).to.equal(1000);
    });

    it('when no Retry-After is given, then the backoff doubles, with jitter, up to maxDelayMs', () => {
      const policy = retryPolicy({ retries: 10, baseDelayMs: 100, maxDelayMs: 1000 });
      const delays = [1, 2, 3, 4, 5].map((retry) => [
        retryDelay(policy, retry, undefined, () => 0),
        retryDelay(policy, retry, undefined, () => 1),
      ]);
      expect(delays).to.deep.equal([
        [50, 100],
        [100, 200],
        [200, 400],
        [400, 800],
        [500, 1000],
      ]);
    });

    it('when the policy asks for unbounded retries, then it is refused', () => {
      expect(() => retryPolicy({ retries: 11 })).to.throw(RangeError, /retries/);
      expect(retryPolicy(false).retries).to.equal(0);
    });
  });
});
