import {
  MongoClient,
  MongoError,
  MongoNetworkError,
  MongoServerError,
  MongoServerSelectionError,
  type Collection,
  type Document,
  type MongoClientOptions,
  type OptionalUnlessRequiredId,
} from 'mongodb';
import { ConfigError } from '../../config-error.js';
import { withinDeadline as sharedDeadline } from '../deadline.js';

/** The database named by the URL's path (`mongodb://host/<name>?...`), or `plant_store`. */
export function databaseName(url: string): string {
  const path = /^[a-z+]+:\/\/[^/?]*\/([^?]*)/i.exec(url)?.[1] ?? '';
  return decodeURIComponent(path) || 'plant_store';
}

/**
 * A client for MONGODB_URL, not connected yet; a ConfigError names the variable when unusable.
 * Bounded waits: an unreachable server fails server selection after 1.5 s, a silent one the socket
 * after 2 s. (`timeoutMS`, CSOT, is deprecated and ignored by driver 7.x.)
 */
export function createMongoClient(url: string, options: MongoClientOptions = {}): MongoClient {
  try {
    return new MongoClient(url, {
      useBigInt64: true,
      serverSelectionTimeoutMS: 1500,
      connectTimeoutMS: 1500,
      socketTimeoutMS: 2000,
      waitQueueTimeoutMS: 1500,
      appName: 'plant-store',
      ...options,
    });
  } catch (error) {
    throw new ConfigError(
      `MONGODB_URL is not a valid MongoDB connection string: ${(error as Error).message}`,
    );
  }
}

export const DUPLICATE_KEY = 11000;

// "Not now" rather than "never": HostUnreachable, HostNotFound, MaxTimeMSExpired, NetworkTimeout,
// ShutdownInProgress, PrimarySteppedDown, ExceededTimeLimit, SocketException, NotWritablePrimary,
// InterruptedAtShutdown, InterruptedDueToReplStateChange, NotPrimaryNoSecondaryOk,
// NotPrimaryOrSecondary.
const TRANSIENT_CODES = new Set([
  6, 7, 50, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436,
]);
// Driver errors that are not exported as classes but mean the pool could not serve in time.
const TRANSIENT_NAMES = new Set(['MongoWaitQueueTimeoutError', 'MongoPoolClearedError']);
// Socket errors the driver sometimes passes on unwrapped (a write to a socket the server closed).
const SOCKET_CODES = new Set(['EPIPE', 'ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'ETIMEDOUT']);

/** Whether the server is unreachable, failing over or too slow: worth a retry later. */
export function isOutage(error: unknown): boolean {
  if (error instanceof MongoNetworkError || error instanceof MongoServerSelectionError) return true;
  if (!(error instanceof MongoError)) {
    return error instanceof Error && SOCKET_CODES.has((error as NodeJS.ErrnoException).code ?? '');
  }
  return (
    TRANSIENT_NAMES.has(error.name) ||
    error.hasErrorLabel('RetryableWriteError') ||
    (typeof error.code === 'number' && TRANSIENT_CODES.has(error.code))
  );
}

// "Up, but taking no writes until an operator acts": OutOfDiskSpace, AtlasError (over the space
// quota); else what servers say of a full disk or a read-only database (mongod, FerretDB).
const REFUSAL_CODES = new Set([14031, 8000]);
const REFUSAL_MESSAGE =
  /no space left on device|disk is full|disk full|out of disk|over your space quota|read-only mode|readonly database|database is read-only/i;

export const isRefusal = (error: unknown): boolean =>
  error instanceof MongoError &&
  ((typeof error.code === 'number' && REFUSAL_CODES.has(error.code)) ||
    REFUSAL_MESSAGE.test(error.message));

/** One driver call within the store deadline: outages storage-unavailable, refusals refuses-writes. */
export const withinDeadline = <T>(operation: () => Promise<T>): Promise<T> =>
  sharedDeadline(operation(), isOutage, isRefusal);

const isDuplicate = (error: unknown): boolean =>
  error instanceof MongoServerError && error.code === DUPLICATE_KEY;

/** A rejection handler: false for a duplicate key, else the error again. */
export function rethrowUnlessDuplicate(error: unknown): false {
  if (isDuplicate(error)) return false;
  throw error;
}

/** Inserts the document within the deadline; resolves false when its key is taken. */
export const insertNew = <T extends Document>(
  collection: Collection<T>,
  document: OptionalUnlessRequiredId<T>,
): Promise<boolean> =>
  withinDeadline(() => collection.insertOne(document).then(() => true, rethrowUnlessDuplicate));

/** A query value checked at run time: an object here could carry a query operator. */
export function text(value: string, what = 'ids and tenants'): string {
  if (typeof value !== 'string') throw new TypeError(`${what} must be strings`);
  return value;
}
