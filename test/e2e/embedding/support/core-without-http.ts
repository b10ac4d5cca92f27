// A host program that embeds the core with no HTTP at all: its own caller, the memory store, the use cases.
import { MemoryPlantStore, PlantError, PlantService, type Caller } from '../../../../src/index.js';

const service = new PlantService(new MemoryPlantStore());
const gardener: Caller = { tenant: 'greenhouse', scopes: ['plants:read', 'plants:write'] };

await service.createPlant(gardener, { id: 9007199254740993n, name: 'Monstera', tag: 'aroid' });
await service.createPlant(gardener, { id: 2, name: 'Fern' });
let refused = '';
try {
  await service.createPlant(gardener, { id: 2n, name: 'Again' });
} catch (error) {
  if (error instanceof PlantError) refused = error.code;
}
const page = await service.listPlants(gardener, { limit: 10 });
await service.deletePlant(gardener, 2n);
const after = await service.listPlants(gardener);
console.log(
  JSON.stringify({
    page: page.plants,
    refused,
    after: after.plants,
  }),
);
