import { Injectable } from '@nestjs/common';
import { RefStore, type RefPlant } from '../reference-store.js';

/** The in-memory store of the other bench servers, as a Nest provider. */
@Injectable()
export class PlantsService {
  private readonly store = new RefStore();

  create(tenant: string, id: number, plant: RefPlant): boolean {
    return this.store.insert(tenant, id, plant);
  }

  list(tenant: string, limit: number): RefPlant[] {
    return this.store.list(tenant, limit);
  }

  remove(tenant: string, id: number): boolean {
    return this.store.remove(tenant, id);
  }
}
