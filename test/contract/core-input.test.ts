import { expect } from 'chai';
import {
  MemoryPlantStore,
  parseNewPlant,
  PlantError,
  PlantService,
  type Caller,
  type NewPlant,
} from '../../src/core.js';

const gardener: Caller = { tenant: 'greenhouse', scopes: ['plants:read', 'plants:write'] };

async function refusal(promise: Promise<unknown>): Promise<PlantError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(PlantError);
    return error as PlantError;
  }
  return expect.fail('accepted');
}

describe('the typed input of createPlant (plant-store/core)', () => {
  const service = new PlantService(new MemoryPlantStore());

  it('when a NewPlant has a bigint or a safe number id, then it is created', async () => {
    const plants: NewPlant[] = [
      { id: 9007199254740993n, name: 'Monstera', tag: 'aroid' },
      { id: 2, name: 'Fern' },
    ];
    for (const plant of plants) await service.createPlant(gardener, plant);
    expect((await service.listPlants(gardener)).plants.map((p) => p.name)).to.deep.equal([
      'Fern',
      'Monstera',
    ]);
  });

  it('when a number id is beyond 2^53 - 1, then the refusal says it is not a safe integer, not out of range', async () => {
    const error = await refusal(service.createPlant(gardener, { id: 2 ** 60, name: 'x' }));

    expect(error.code).to.equal('invalid-plant');
    expect(error.message).to.equal(
      'id 1152921504606847000 is not a safe integer, so it may be rounded already; pass a bigint',
    );
  });

  it('when a bigint id is beyond int64, then the refusal names the int64 range', async () => {
    const error = await refusal(service.createPlant(gardener, { id: 2n ** 63n, name: 'x' }));
    expect(error.message).to.match(/^id must be an integer from -9223372036854775808 to/);
  });

  it('when an untyped caller misspells a field, then the compiler refuses it and the run-time check too', async () => {
    // @ts-expect-error `nme` is not a field of NewPlant, and `name` is missing
    const error = await refusal(service.createPlant(gardener, { id: 1, nme: 'x' }));
    expect(error.message).to.equal('name is required');
  });

  it('when parseNewPlant is given something other than an object, then it refuses it as invalid-plant', () => {
    for (const candidate of [null, 'plant', [1, 'x'], 7]) {
      expect(() => parseNewPlant(candidate)).to.throw(PlantError, /must be an object/);
    }
  });
});
