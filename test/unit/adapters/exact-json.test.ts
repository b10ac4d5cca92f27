import { expect } from 'chai';
import fc from 'fast-check';
import { parse } from 'lossless-json';
import { exactInteger, parseExactJson } from '../../../src/adapters/exact-json.js';

/** The full parse alone: what parseExactJson gives when no fast path is taken. */
const full = (text: string): unknown =>
  parse(text, null, (literal) => exactInteger(literal) ?? Number.NaN);

const outcome = (run: () => unknown): unknown => {
  try {
    return { value: run() };
  } catch {
    return { thrown: true };
  }
};

describe('parseExactJson on export lines (its fast path)', () => {
  const text = fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 12 }).map((value) => JSON.stringify(value)),
    fc.string({ maxLength: 6 }).map((value) => `"${value}"`),
  );
  const id = fc.oneof(
    fc.bigInt({ min: -(10n ** 21n), max: 10n ** 21n }).map(String),
    fc.stringMatching(/^-?[0-9]{1,22}(\.[0-9]{1,2})?$/),
  );

  it('when a line is anything shaped like a plant line, then it reads as the full parse does', () => {
    fc.assert(
      fc.property(text, id, text, fc.option(text), (tenant, literal, name, tag) => {
        const line = `{"tenant":${tenant},"id":${literal},"name":${name}${tag === null ? '' : `,"tag":${tag}`}}`;
        expect(outcome(() => parseExactJson(line))).to.deep.equal(outcome(() => full(line)));
      }),
      { numRuns: 2000 },
    );
  });

  it('when an id lies beyond 2^53, then it stays exact', () => {
    expect(parseExactJson('{"tenant":"t","id":9007199254740993,"name":"n"}')).to.deep.equal({
      tenant: 't',
      id: 9007199254740993n,
      name: 'n',
    });
  });
});
