import { expect } from 'chai';
import fc from 'fast-check';
import { parse } from 'lossless-json';
import { HttpProblem } from '../../../../src/adapters/http/error-catalogue.js';
import { exactInteger } from '../../../../src/adapters/exact-json.js';
import { parseJsonObject } from '../../../../src/adapters/http/json-body.js';

describe('exactInteger', () => {
  const integers: [string, bigint][] = [
    ['0', 0n],
    ['12', 12n],
    ['12.0', 12n],
    ['1.2e1', 12n],
    ['120e-1', 12n],
    ['1E+2', 100n],
    ['0.0e5', 0n],
    ['9007199254740993', 9007199254740993n],
    ['-9223372036854775808', -(2n ** 63n)],
    ['92233720368547758.07e2', 9223372036854775807n],
    ['1e-00000000000000000000', 1n],
    [`12${'0'.repeat(10000)}e-10000`, 12n],
    [`0.${'0'.repeat(10000)}1e10001`, 1n],
  ];
  for (const [literal, value] of integers) {
    it(`when the literal is ${literal}, then it is exactly ${value}`, () => {
      expect(exactInteger(literal)).to.equal(value);
    });
  }

  for (const literal of [
    '1.5',
    '1.0000000000000001',
    '1e-1',
    '1e400',
    '1e99999999999',
    `1${'0'.repeat(30)}e-31`,
    '-',
    'abc',
    '1.',
    '.5',
  ]) {
    it(`when the literal is ${literal}, then it is no integer`, () => {
      expect(exactInteger(literal)).to.equal(undefined);
    });
  }
});

describe('parseJsonObject', () => {
  const bytes = (text: string) => new TextEncoder().encode(text);

  it('when an id is beyond 2^53, then it stays exact as a bigint', () => {
    expect(parseJsonObject(bytes('{"id":9007199254740993,"name":"x"}'))).to.deep.equal({
      id: 9007199254740993n,
      name: 'x',
    });
  });

  it('when a number is a fraction, then it becomes NaN, which no field accepts', () => {
    expect(Number.isNaN(parseJsonObject(bytes('{"id":1.5}')).id)).to.equal(true);
  });

  for (const text of ['', '[]', 'null', '{"a":1,"a":2}', '{"a":1']) {
    it(`when the body is ${JSON.stringify(text)}, then 40001`, () => {
      expect(() => parseJsonObject(bytes(text)))
        .to.throw(HttpProblem)
        .with.property('code', 40001);
    });
  }

  it('when the parser quotes control or bidirectional characters of the body, then the message holds them escaped', () => {
    expect(() => parseJsonObject(bytes('{"\\u001b[2J\u202E":1,"\\u001b[2J\u202E":2}')))
      .to.throw(HttpProblem)
      .with.property('message')
      .that.includes("Duplicate key '\\u001B[2J\\u202E'");
    expect(() => parseJsonObject(bytes('{"a":1 \u0085}')))
      .to.throw(HttpProblem)
      .with.property('message')
      .that.includes("'\\u0085'");
  });
});

describe('parseJsonObject on plant-shaped bodies (its fast path)', () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  /** The full parse alone: what parseJsonObject gives when no fast path is taken. */
  const full = (text: string): unknown =>
    parse(text, null, (literal) => exactInteger(literal) ?? Number.NaN);
  const outcome = (run: () => unknown): unknown => {
    try {
      return { value: run() };
    } catch (error) {
      return { code: (error as { code?: unknown }).code ?? 40001 };
    }
  };
  const space = fc.stringMatching(/^[ \t\n\r]{0,3}$/);
  const idLiteral = fc.oneof(
    fc.bigInt({ min: -(10n ** 21n), max: 10n ** 21n }).map(String),
    fc.stringMatching(/^-?[0-9]{1,22}(\.[0-9]{1,3})?([eE][+-]?[0-9]{1,2})?$/),
  );
  // Plain text, text needing escapes (written escaped, as JSON), and raw quotes or controls.
  const text = fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 12 }).map((value) => JSON.stringify(value)),
    fc.string({ unit: 'binary', maxLength: 12 }).map((value) => JSON.stringify(value)),
    fc.string({ maxLength: 6 }).map((value) => `"${value}"`),
  );
  const member = (key: string, value: fc.Arbitrary<string>) =>
    fc.tuple(space, space, space, value).map(([a, b, c, v]) => `${a}"${key}"${b}:${c}${v}`);
  const body = fc
    .tuple(
      member('id', idLiteral),
      member('name', text),
      fc.option(member('tag', text)),
      fc.option(member('name', text)),
      fc.boolean(),
      space,
      space,
    )
    .map(([id, name, tag, again, reversed, before, after]) => {
      const members = [
        id,
        name,
        ...(tag === null ? [] : [tag]),
        ...(again === null ? [] : [again]),
      ];
      if (reversed) members.reverse();
      return `${before}{${members.join(',')}${after}}${before}`;
    });

  it('when a body is shaped like a plant or nearly, then the result is the full parse’s, or the same 40001', () => {
    fc.assert(
      fc.property(body, (text) => {
        expect(
          outcome(() => parseJsonObject(bytes(text))),
          text,
        ).to.deep.equal(outcome(() => full(text)));
      }),
      { numRuns: 3000 },
    );
  });

  it('when the common body comes, then the id is exact and the strings are as written', () => {
    expect(
      parseJsonObject(bytes('{ "id": 18446744073709551615, "name": "Fern é", "tag": "a/b" }\n')),
    ).to.deep.equal({ id: 18446744073709551615n, name: 'Fern é', tag: 'a/b' });
    expect(parseJsonObject(bytes('{"id":0,"name":""}'))).to.deep.equal({ id: 0n, name: '' });
  });

  it('when the id is a negative zero, then it is no integer (NaN, which no field accepts)', () => {
    for (const id of ['-0', '-0.0', '-0e3', '-0.000e-2']) {
      expect(exactInteger(id)).to.equal(undefined);
      expect(Number.isNaN(parseJsonObject(bytes(`{"id":${id},"name":"x"}`)).id)).to.equal(true);
    }
  });
});
