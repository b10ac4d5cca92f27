import { expect } from 'chai';
import { MemoryPlantStore } from '../../../../src/adapters/storage/memory/memory-plant-store.js';
import { StartingStorage } from '../../../../src/adapters/storage/starting-storage.js';
import { PLANT_STORE_METHODS } from '../../../../src/ports/plant-store.js';

const methodsOf = (prototype: object): string[] =>
  Object.getOwnPropertyNames(prototype)
    .filter((name) => name !== 'constructor')
    .sort();

describe('the store decorators', () => {
  it('when the service decorates the plant store, then every method of the port is forwarded', () => {
    expect([...PLANT_STORE_METHODS].sort()).to.deep.equal(methodsOf(MemoryPlantStore.prototype));
  });

  it('when the storage is starting, then its plant store has every method of the port', async () => {
    // An open that fails at once: the starting stores are all this test looks at.
    const storage = new StartingStorage(() => Promise.reject(new Error('not opened')));
    expect(Object.keys(storage.plants).sort()).to.deep.equal([...PLANT_STORE_METHODS].sort());
    await storage.close();
  });
});
