import { MongoClient, type MongoClientOptions } from 'mongodb';
import { ConfigError } from '../../config-error.js';

const DEFAULT_DATABASE = 'plant_store';

// Bounded waits: an unreachable server fails server selection after 1.5 s, a silent one the socket
// after 2 s. (`timeoutMS`, CSOT, is deprecated and ignored by driver 7.x.)
const CLIENT_OPTIONS: MongoClientOptions = {
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

/**
 * Start-up work waits up to the whole start-up bound, not the requests' deadlines: a handshake on a
 * busy machine or a fresh database's first collection may take seconds, an index build minutes.
 */
export const startupOptions = (boundMs: number): MongoClientOptions => ({
  serverSelectionTimeoutMS: boundMs,
  connectTimeoutMS: Math.min(10_000, boundMs),
  socketTimeoutMS: boundMs,
  waitQueueTimeoutMS: boundMs,
  maxPoolSize: 1,
});

/** A client for MONGODB_URL, not connected yet; a ConfigError names the variable when unusable. */
export function createMongoClient(url: string, options: MongoClientOptions = {}): MongoClient {
  try {
    return new MongoClient(url, { ...CLIENT_OPTIONS, ...options });
  } catch (error) {
    throw new ConfigError(
      `MONGODB_URL is not a valid MongoDB connection string: ${(error as Error).message}`,
    );
  }
}
