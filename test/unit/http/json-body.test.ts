import { expect } from 'chai';
import { HttpProblem } from '../../../src/adapters/http/http-problem.js';
import { exactInteger, parseJsonObject } from '../../../src/adapters/http/json-body.js';

describe('exactInteger', () => {
  const integers: [string, bigint][] = [
    ['0', 0n],
    ['-0', 0n],
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
});
