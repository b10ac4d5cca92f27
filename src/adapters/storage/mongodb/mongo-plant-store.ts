import { MongoServerError, type Collection, type MongoClient } from 'mongodb';
import type { PlantId } from '../../../domain/plant-id.js';
import type { StoredPlant } from '../../../domain/plant.js';
import type { PlantStore } from '../../../ports/plant-store.js';
import { DUPLICATE_KEY, withinDeadline } from './mongo-errors.js';

/** A plant as stored: `id` is a BSON int64 (a bigint here), never a double. */
export interface PlantDocument {
  tenant: string;
  id: bigint;
  name: string;
  tag?: string;
}

export const COLLECTION = 'plants';
export const INDEX_NAME = 'tenant_1_id_1';

// Never _id or tenant: a listed document is exactly a StoredPlant.
const PROJECTION = { _id: 0, id: 1, name: 1, tag: 1 } as const;

/**
 * Plants in one MongoDB collection, one document per plant, unique on (tenant, id). Every query
 * is built here from a string tenant and a bigint id, so no request value can become an operator.
 */
export class MongoPlantStore implements PlantStore {
  constructor(
    private readonly client: MongoClient,
    private readonly plants: Collection<PlantDocument>,
  ) {}

  async insert(tenant: string, plant: StoredPlant): Promise<boolean> {
    const document: PlantDocument = { ...key(tenant, plant.id), name: plant.name };
    if (plant.tag !== undefined) document.tag = plant.tag;
    return this.run(async () => {
      try {
        await this.plants.insertOne(document);
        return true;
      } catch (error) {
        if (error instanceof MongoServerError && error.code === DUPLICATE_KEY) return false;
        throw error;
      }
    });
  }

  async list(tenant: string, after: PlantId | undefined, limit: number): Promise<StoredPlant[]> {
    // The driver reads limit 0 as "no limit".
    if (!(limit >= 1)) return [];
    const filter =
      after === undefined ? key(tenant) : { ...key(tenant), id: { $gt: exact(after) } };
    const documents = await this.run(() =>
      this.plants
        .find(filter, { projection: PROJECTION, sort: { id: 1 }, limit, batchSize: limit })
        .toArray(),
    );
    return documents.map(toStoredPlant);
  }

  async delete(tenant: string, id: PlantId): Promise<boolean> {
    const { deletedCount } = await this.run(() => this.plants.deleteOne(key(tenant, id)));
    return deletedCount === 1;
  }

  async ping(): Promise<void> {
    await this.run(() => this.client.db('admin').command({ ping: 1 }));
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  private run<T>(operation: () => Promise<T>): Promise<T> {
    return withinDeadline(operation);
  }
}

function key(tenant: string): { tenant: string };
function key(tenant: string, id: PlantId): { tenant: string; id: bigint };
function key(tenant: string, id?: PlantId): { tenant: string; id?: bigint } {
  // Types are checked at run time too: an object here could carry a query operator.
  if (typeof tenant !== 'string') throw new TypeError('tenant must be a string');
  if (id === undefined) return { tenant };
  return { tenant, id: exact(id) };
}

function exact(id: PlantId): bigint {
  if (typeof id !== 'bigint') throw new TypeError('id must be a bigint');
  return id;
}

function toStoredPlant(document: Partial<PlantDocument>): StoredPlant {
  // An int64 arrives as a bigint; an id written as int32 by another tool arrives as a number.
  const id = BigInt(document.id as bigint | number);
  const name = String(document.name);
  return typeof document.tag === 'string' ? { id, name, tag: document.tag } : { id, name };
}
