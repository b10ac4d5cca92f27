import { OPERATION_SCOPES, requireScope, type Caller } from '../domain/caller.js';
import { PlantError } from '../domain/errors.js';
import { isPlantId, type PlantId } from '../domain/plant-id.js';
import { checkTagFilter, parseNewPlant, toPlant, type NewPlant } from '../domain/plant.js';
import type { PlantEvents } from '../ports/plant-events.js';
import type { PlantStore } from '../ports/plant-store.js';
import type { PlantPage, PlantQuery, PlantUseCases } from '../ports/plant-use-cases.js';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

/** The plant use cases over any PlantStore; `events` hears of a create's event once recorded. */
export class PlantService implements PlantUseCases {
  constructor(
    private readonly store: PlantStore,
    private readonly events?: PlantEvents,
  ) {}

  async createPlant(caller: Caller, input: NewPlant) {
    requireScope(caller, OPERATION_SCOPES.createPlant);
    // Checked again at run time: a caller without types can pass anything.
    const plant = parseNewPlant(input);
    if (!(await this.store.insert(caller.tenant, plant, { type: 'plant.created', plant }))) {
      throw new PlantError('duplicate-plant', `a plant with id ${plant.id} already exists`);
    }
    this.events?.recorded(caller.tenant);
    return toPlant(plant);
  }

  async listPlants(caller: Caller, query: PlantQuery = {}): Promise<PlantPage> {
    requireScope(caller, OPERATION_SCOPES.listPlants);
    const { limit = DEFAULT_LIMIT, after } = query;
    const tags = checkTagFilter(query.tags);
    if (!Number.isSafeInteger(limit) || limit < 0) {
      throw new PlantError('invalid-query', 'limit must be a whole number of at least 0');
    }
    if (after !== undefined && !isPlantId(after)) {
      throw new PlantError('invalid-query', 'after must be an int64 plant id');
    }
    const wanted = Math.min(limit, MAX_LIMIT);
    if (wanted === 0) return { plants: [] };
    // One extra plant tells whether another page follows, in the same round trip.
    const found = await this.store.list(caller.tenant, after, wanted + 1, tags);
    const plants = found.slice(0, wanted).map(toPlant);
    return found.length > wanted ? { plants, next: found[wanted - 1]!.id } : { plants };
  }

  async getPlant(caller: Caller, id: PlantId) {
    requireScope(caller, OPERATION_SCOPES.getPlant);
    if (!isPlantId(id)) throw new PlantError('invalid-plant', 'id must be an int64 plant id');
    const plant = await this.store.get(caller.tenant, id);
    if (plant === undefined) throw new PlantError('plant-not-found', `no plant with id ${id}`);
    return toPlant(plant);
  }

  async deletePlant(caller: Caller, id: PlantId): Promise<void> {
    requireScope(caller, OPERATION_SCOPES.deletePlant);
    if (!isPlantId(id)) throw new PlantError('invalid-plant', 'id must be an int64 plant id');
    if (!(await this.store.delete(caller.tenant, id))) {
      throw new PlantError('plant-not-found', `no plant with id ${id}`);
    }
  }
}
