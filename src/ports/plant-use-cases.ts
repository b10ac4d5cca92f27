import type { Caller } from '../domain/caller.js';
import type { PlantId } from '../domain/plant-id.js';
import type { Plant } from '../domain/plant.js';

/** One page of a tenant's plants; `next` is the id to continue after when more may follow. */
export interface PlantPage {
  plants: Plant[];
  next?: PlantId;
}

/** Driving port: what the core offers, each operation acting for a caller. Refusals are PlantErrors. */
export interface PlantUseCases {
  /** Creates the plant in the caller's tenant (scope plants:write); rejects with `duplicate-plant` when its id is taken. */
  createPlant(caller: Caller, input: Readonly<Record<string, unknown>>): Promise<Plant>;
  /** Lists the caller's plants by ascending id (scope plants:read); limit defaults to 100 and is capped at 1000. */
  listPlants(caller: Caller, query?: { limit?: number; after?: PlantId }): Promise<PlantPage>;
  /** Deletes one of the caller's plants (scope plants:write); rejects with `plant-not-found` when absent. */
  deletePlant(caller: Caller, id: PlantId): Promise<void>;
}
