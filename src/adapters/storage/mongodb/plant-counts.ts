import { MongoServerError, type Collection } from 'mongodb';
import { DUPLICATE_KEY } from './mongo-errors.js';

/** One tenant's plant count: `_id` is the tenant. */
export interface CountDocument {
  _id: string;
  count: number;
}

export const COUNT_COLLECTION = 'plant_counts';

/**
 * Per-tenant plant counts that enforce a quota without transactions (FerretDB has none): a create
 * first reserves a place with one conditional `$inc` (atomic on its one document, so racing
 * creates cannot pass the quota), then inserts, and gives the place back when nothing was stored.
 * A count may run above the real number when the service stops between the two steps or an
 * outage hides whether an insert happened: a tenant then reaches its quota a little early, never
 * late. Plants stored before counting began are not counted.
 */
export class PlantCounts {
  constructor(
    private readonly counts: Collection<CountDocument>,
    private readonly max: number,
  ) {}

  /** Takes a place for one plant; resolves false when the tenant holds `max` already. */
  async reserve(tenant: string): Promise<boolean> {
    // Upserting a tenant at its quota inserts a second document with its _id: a duplicate key.
    // Two first creates of a tenant race to insert its document too, so the loser tries again.
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await this.counts.updateOne(
          { _id: tenant, count: { $lt: this.max } },
          { $inc: { count: 1 } },
          { upsert: true },
        );
        return true;
      } catch (error) {
        if (!(error instanceof MongoServerError && error.code === DUPLICATE_KEY)) throw error;
      }
    }
    return false;
  }

  /** Gives one place back: a reserved create stored nothing, or a plant was deleted. */
  async release(tenant: string): Promise<void> {
    await this.counts.updateOne({ _id: tenant, count: { $gt: 0 } }, { $inc: { count: -1 } });
  }
}
