import type { MongoClient } from 'mongodb';
import { MongoServerError } from 'mongodb';
import { openCollection, unreachableAtStartup } from './mongo-client.js';
import { isOutage } from './mongo-errors.js';
import {
  COLLECTION,
  INDEX_NAME,
  MongoPlantStore,
  type PlantDocument,
} from './mongo-plant-store.js';

/**
 * Connects and makes sure the unique (tenant, id) index exists. Start-up fails fast, with one
 * line naming MONGODB_URL, when the server cannot be reached: a store without its index could
 * accept duplicates, and a supervisor restarting the service is a clearer signal than a
 * service that starts and answers 503.
 */
export async function openMongoPlantStore(url: string): Promise<MongoPlantStore> {
  const { client, collection: plants } = openCollection<PlantDocument>(url, COLLECTION);
  try {
    // Idempotent: creating an index that exists with the same keys and options is a no-op.
    await plants.createIndex({ tenant: 1, id: 1 }, { unique: true, name: INDEX_NAME });
    // FerretDB v1 answers ok to createIndex when a non-unique index of that name exists; MongoDB
    // refuses (code 85/86). Checking the result keeps both from accepting duplicates.
    const indexes = await plants.listIndexes().toArray();
    if (!indexes.some(isUniqueTenantIdIndex)) throw new Error(CONFLICT_MESSAGE);
  } catch (error) {
    await client.close().catch(() => {});
    throw startupError(error, client);
  }
  return new MongoPlantStore(client, plants);
}

const CONFLICT_MESSAGE = `MongoDB collection ${COLLECTION} has a non-unique index on (tenant, id); drop it so that ${INDEX_NAME} can be built unique`;

function isUniqueTenantIdIndex(index: {
  key?: Record<string, unknown>;
  unique?: unknown;
}): boolean {
  const fields = Object.entries(index.key ?? {});
  return (
    index.unique === true &&
    fields.length === 2 &&
    fields[0]?.[0] === 'tenant' &&
    Number(fields[0][1]) === 1 &&
    fields[1]?.[0] === 'id' &&
    Number(fields[1][1]) === 1
  );
}

function startupError(error: unknown, client: MongoClient): Error {
  if (isOutage(error)) return unreachableAtStartup(client);
  if (error instanceof MongoServerError && (error.code === 85 || error.code === 86)) {
    return new Error(CONFLICT_MESSAGE);
  }
  return error instanceof Error ? error : new Error(String(error));
}
