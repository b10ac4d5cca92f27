import type { Caller } from '../domain/caller.js';
import type { PlantId } from '../domain/plant-id.js';
import type { NewPlant, Plant } from '../domain/plant.js';

/** One page of a tenant's plants; `next` is the id to continue after when more may follow. */
export interface PlantPage {
  plants: Plant[];
  next?: PlantId;
}

export interface PlantQuery {
  limit?: number | undefined;
  after?: PlantId | undefined;
  tags?: readonly string[] | undefined;
}

/** Driving port: what the core offers, each operation acting for a caller. Refusals are PlantErrors. */
export interface PlantUseCases {
  /** Creates the plant (scope plants:write); rejects with `invalid-plant` or `duplicate-plant`. */
  createPlant(caller: Caller, input: NewPlant): Promise<Plant>;
  /** The caller's plants by ascending id (plants:read), 100 or `limit` (up to 1000), by `tags`. */
  listPlants(caller: Caller, query?: PlantQuery): Promise<PlantPage>;
  /** The caller's plant with that id (scope plants:read); rejects with `plant-not-found` when absent. */
  getPlant(caller: Caller, id: PlantId): Promise<Plant>;
  /** Deletes one of the caller's plants (scope plants:write); rejects with `plant-not-found` when absent. */
  deletePlant(caller: Caller, id: PlantId): Promise<void>;
}
