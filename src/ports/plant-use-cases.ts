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
  /** Creates the plant in the caller's tenant (scope plants:write); rejects with `invalid-plant` when a field fails its rule (checked at run time too) and `duplicate-plant` when its id is taken. */
  createPlant(caller: Caller, input: NewPlant): Promise<Plant>;
  /**
   * Lists the caller's plants by ascending id (scope plants:read); limit defaults to 100 and is
   * capped at 1000. With `tags`, only the plants whose tag is one of them (checkTagFilter's rules).
   */
  listPlants(caller: Caller, query?: PlantQuery): Promise<PlantPage>;
  /** The caller's plant with that id (scope plants:read); rejects with `plant-not-found` when absent. */
  getPlant(caller: Caller, id: PlantId): Promise<Plant>;
  /** Deletes one of the caller's plants (scope plants:write); rejects with `plant-not-found` when absent. */
  deletePlant(caller: Caller, id: PlantId): Promise<void>;
}
