import { expect } from 'chai';
import { PlantError } from '../../../src/domain/errors.js';
import { parsePlantId } from '../../../src/domain/plant-id.js';
import { parseNewPlant, toPlant } from '../../../src/domain/plant.js';
import { thrown } from '../../support/rejection.js';

const refusal = (input: Record<string, unknown>): PlantError =>
  thrown(() => parseNewPlant(input), PlantError);

describe('parseNewPlant', () => {
  it('when the fields are valid, then only id, name and tag are kept', () => {
    expect(parseNewPlant({ id: 1n, name: 'Fern', tag: 'x', extra: true })).to.deep.equal({
      id: 1n,
      name: 'Fern',
      tag: 'x',
    });
  });

  it('when the id is a safe integer number, then it becomes a bigint', () => {
    expect(parseNewPlant({ id: 42, name: 'x' })).to.deep.equal({ id: 42n, name: 'x' });
  });

  for (const id of [1.5, 2 ** 53, Number.NaN, '1', null, true, 2n ** 63n, -(2n ** 63n) - 1n]) {
    it(`when the id is ${String(id)}, then invalid-plant names id`, () => {
      const error = refusal({ id, name: 'x' });
      expect(error.code).to.equal('invalid-plant');
      expect(error.message).to.match(/^id /);
    });
  }

  it('when the int64 extremes are given, then they are accepted', () => {
    expect(parseNewPlant({ id: 2n ** 63n - 1n, name: 'x' }).id).to.equal(2n ** 63n - 1n);
    expect(parseNewPlant({ id: -(2n ** 63n), name: 'x' }).id).to.equal(-(2n ** 63n));
  });

  for (const [name, why] of [
    ['', 'empty'],
    ['x'.repeat(257), 'too long'],
    ['a\u0000b', 'NUL'],
    ['a\u001fb', 'C0'],
    ['a\u007fb', 'DEL'],
    ['a\u009fb', 'C1'],
    ['a\ud800b', 'lone high surrogate'],
    ['a\udc00', 'lone low surrogate'],
  ] as const) {
    it(`when the name is ${why}, then invalid-plant names name`, () => {
      expect(refusal({ id: 1n, name }).message).to.match(/^name /);
    });
  }

  it('when the name has 256 astral code points (512 UTF-16 units), then it is accepted', () => {
    expect(parseNewPlant({ id: 1n, name: '🌵'.repeat(256) }).name).to.have.length(512);
    expect(refusal({ id: 1n, name: '🌵'.repeat(257) }).message).to.match(/^name /);
  });

  it('when the tag is empty, then it is kept; when null or too long, then refused', () => {
    expect(parseNewPlant({ id: 1n, name: 'x', tag: '' })).to.deep.equal({
      id: 1n,
      name: 'x',
      tag: '',
    });
    expect(refusal({ id: 1n, name: 'x', tag: null }).message).to.match(/^tag /);
    expect(refusal({ id: 1n, name: 'x', tag: 't'.repeat(65) }).message).to.match(/^tag /);
  });
});

describe('toPlant', () => {
  it('when a stored plant is shown, then its id is dropped', () => {
    expect(toPlant({ id: 1n, name: 'x', tag: 't' })).to.deep.equal({ name: 'x', tag: 't' });
    expect(toPlant({ id: 1n, name: 'x' })).to.have.all.keys('name');
  });
});

describe('parsePlantId', () => {
  it('when the text is canonical decimal int64, then it is read exactly', () => {
    expect(parsePlantId('9007199254740993')).to.equal(9007199254740993n);
    expect(parsePlantId('-9223372036854775808')).to.equal(-(2n ** 63n));
    expect(parsePlantId('0')).to.equal(0n);
  });

  for (const text of [
    '',
    '-0',
    '01',
    '+1',
    '1.0',
    '1e3',
    ' 1',
    '9223372036854775808',
    '-9223372036854775809',
    '00',
  ]) {
    it(`when the text is ${JSON.stringify(text)}, then it is refused`, () => {
      expect(parsePlantId(text)).to.equal(undefined);
    });
  }
});
