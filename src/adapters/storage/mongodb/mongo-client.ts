import { MongoClient, type Collection, type Document, type MongoClientOptions } from 'mongodb';
import { PlantError } from '../../../domain/errors.js';
import { ConfigError } from '../../config.js';

export const DEFAULT_DATABASE = 'plant_store';

/**
 * Bounded waits: an unreachable server fails server selection after 1.5 s, a silent one the
 * socket after 2 s. (`timeoutMS`, CSOT, is deprecated and ignored by driver 7.x.)
 */
export const CLIENT_OPTIONS: MongoClientOptions = {
  useBigInt64: true,
  serverSelectionTimeoutMS: 1500,
  connectTimeoutMS: 1500,
  socketTimeoutMS: 2000,
  waitQueueTimeoutMS: 1500,
  appName: 'plant-store',
};

/** The database named by the URL's path (`mongodb://host/<name>?...`), or `plant_store`. */
export function databaseName(url: string): string {
  const path = /^[a-z+]+:\/\/[^/?]*\/([^?]*)/i.exec(url)?.[1] ?? '';
  return decodeURIComponent(path) || DEFAULT_DATABASE;
}

/** A client for MONGODB_URL (not connected yet) and one collection of its database. */
export function openCollection<T extends Document>(
  url: string,
  name: string,
): { client: MongoClient; collection: Collection<T> } {
  let client: MongoClient;
  try {
    client = new MongoClient(url, CLIENT_OPTIONS);
  } catch (error) {
    throw new ConfigError(
      `MONGODB_URL is not a valid MongoDB connection string: ${(error as Error).message}`,
    );
  }
  return { client, collection: client.db(databaseName(url)).collection<T>(name) };
}

/** The start-up failure for an unreachable server, naming its hosts only: the URL may hold credentials. */
export function unreachableAtStartup(client: MongoClient): PlantError {
  const hosts = client.options.hosts.map(String).join(',');
  return new PlantError('storage-unavailable', `MongoDB at ${hosts} (MONGODB_URL) is unreachable`);
}
