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

  /**
   * Takes places for up to `wanted` plants at once (an import's batch): reads the count, then takes
   * what is left with one conditional `$inc`, read again when another writer moved it meanwhile.
   * Resolves how many places it took.
   */
  async reserveUpTo(tenant: string, wanted: number): Promise<number> {
    for (let attempt = 0; attempt < 10; attempt++) {
      const held = (await this.counts.findOne({ _id: tenant }))?.count ?? 0;
      const granted = Math.min(wanted, this.max - held);
      if (granted <= 0) return 0;
      try {
        const { matchedCount, upsertedCount } = await this.counts.updateOne(
          { _id: tenant, count: { $lte: this.max - granted } },
          { $inc: { count: granted } },
          { upsert: true },
        );
        if (matchedCount + upsertedCount === 1) return granted;
      } catch (error) {
        if (!(error instanceof MongoServerError && error.code === DUPLICATE_KEY)) throw error;
      }
    }
    return 0;
  }

  /** Gives places back: a reserved create stored nothing, or a plant was deleted. */
  async release(tenant: string, places = 1): Promise<void> {
    await this.counts.updateOne(
      { _id: tenant, count: { $gte: places } },
      { $inc: { count: -places } },
    );
  }
}
