import { expect } from 'chai';
import {
  decodeId,
  decodeMember,
  encodeId,
  encodeMember,
} from '../../../../../src/adapters/storage/redis/redis-plant-codec.js';
import { MAX_PLANT_ID, MIN_PLANT_ID } from '../../../../../src/domain/plant-id.js';

const randomId = (): bigint =>
  BigInt.asIntN(64, BigInt(Math.floor(Math.random() * 2 ** 32)) << 32n) +
  BigInt(Math.floor(Math.random() * 2 ** 32));

describe('Redis plant codec', () => {
  it('when ids are encoded, then byte order of the codes is numeric order of the ids', () => {
    const ids = [MIN_PLANT_ID, -1n, 0n, 2n ** 53n, 2n ** 53n + 1n, MAX_PLANT_ID];
    for (let i = 0; i < 500; i++) ids.push(randomId());
    const byCode = [...ids].sort((a, b) => (encodeId(a) < encodeId(b) ? -1 : 1));

    expect(byCode).to.deep.equal([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(ids.map(encodeId).every((code) => /^[0-9a-f]{16}$/.test(code))).to.equal(true);
    expect(ids.map((id) => decodeId(encodeId(id)))).to.deep.equal(ids);
  });

  it('when a plant is encoded, then decoding gives it back, an empty tag kept and an absent one absent', () => {
    for (const plant of [
      { id: MIN_PLANT_ID, name: 'a:b{c}', tag: '' },
      { id: MAX_PLANT_ID, name: '🌵 "x"\n' },
      { id: 0n, name: 'plant-000001', tag: 'tag-0001' },
      { id: -1n, name: 'ü \u2028 ,"tag":"', tag: 'a\\b' },
      { id: 1n, name: 'x', tag: '"}' },
      { id: 2n, name: '}' },
    ]) {
      const decoded = decodeMember(encodeMember(plant));
      expect(decoded).to.deep.equal(plant);
      expect({ ...decoded }).to.deep.equal(plant);
      expect(Object.keys(decoded)).to.have.members(Object.keys(plant));
    }
  });

  it('when a member was not written by the store, then decoding throws', () => {
    for (const member of [
      '7fff:{"name":"x"}',
      '8000000000000000:{"tag":"x"}',
      'junk',
      '8000000000000000:{"name":"x"',
      '8000000000000000:{"name":"x","tag":"y"',
      '8000000000000000:{"name":"x","tag":1}',
      '8000000000000000:{"name":"x"}}',
      '800000000000000G:{"name":"x"}',
    ]) {
      expect(() => decodeMember(member)).to.throw();
    }
  });
});
