import { MongoClient, MongoServerError } from 'mongodb';
import { PlantError } from '../../../domain/errors.js';
import { ConfigError } from '../../config.js';
import { isOutage } from './mongo-errors.js';
import {
  CLIENT_OPTIONS,
  COLLECTION,
  INDEX_NAME,
  MongoPlantStore,
  type PlantDocument,
} from './mongo-plant-store.js';

export const DEFAULT_DATABASE = 'plant_store';

/** The database named by the URL's path (`mongodb://host/<name>?...`), or `plant_store`. */
export function databaseName(url: string): string {
  const path = /^[a-z+]+:\/\/[^/?]*\/([^?]*)/i.exec(url)?.[1] ?? '';
  return decodeURIComponent(path) || DEFAULT_DATABASE;
}

/**
 * Connects and makes sure the unique (tenant, id) index exists. Start-up fails fast, with one
 * line naming MONGODB_URL, when the server cannot be reached: a store without its index could
 * accept duplicates, and a supervisor restarting the service is a clearer signal than a
 * service that starts and answers 503.
 */
export async function openMongoPlantStore(url: string): Promise<MongoPlantStore> {
  let client: MongoClient;
  try {
    client = new MongoClient(url, CLIENT_OPTIONS);
  } catch (error) {
    throw new ConfigError(
      `MONGODB_URL is not a valid MongoDB connection string: ${(error as Error).message}`,
    );
  }
  const plants = client.db(databaseName(url)).collection<PlantDocument>(COLLECTION);
  try {
    // Idempotent: creating an index that exists with the same keys and options is a no-op.
    await plants.createIndex({ tenant: 1, id: 1 }, { unique: true, name: INDEX_NAME });
  } catch (error) {
    await client.close().catch(() => {});
    throw startupError(error, client);
  }
  return new MongoPlantStore(client, plants);
}

function startupError(error: unknown, client: MongoClient): Error {
  // Host names only: the URL may hold credentials.
  const hosts = client.options.hosts.map(String).join(',');
  if (isOutage(error)) {
    return new PlantError(
      'storage-unavailable',
      `MongoDB at ${hosts} (MONGODB_URL) is unreachable; the service needs it to start`,
    );
  }
  if (error instanceof MongoServerError && (error.code === 85 || error.code === 86)) {
    return new Error(
      `MongoDB index ${COLLECTION}.${INDEX_NAME} exists with other options; drop it so that a unique one can be built`,
    );
  }
  return error instanceof Error ? error : new Error(String(error));
}
