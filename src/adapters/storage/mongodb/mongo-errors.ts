import {
  MongoError,
  MongoNetworkError,
  MongoServerError,
  MongoServerSelectionError,
  type Collection,
  type Document,
  type OptionalUnlessRequiredId,
} from 'mongodb';
import { withinDeadline as sharedDeadline } from '../deadline.js';

/** MongoDB's duplicate-key error code (E11000). */
export const DUPLICATE_KEY = 11000;

// Server codes that mean "not now" rather than "never": shutdown, failover, host loss, time limits.
const TRANSIENT_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  50, // MaxTimeMSExpired
  89, // NetworkTimeout
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  262, // ExceededTimeLimit
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

// Driver errors that are not exported as classes but mean the pool could not serve in time.
const TRANSIENT_NAMES = new Set(['MongoWaitQueueTimeoutError', 'MongoPoolClearedError']);

// Socket errors the driver sometimes passes on unwrapped (a write to a socket the server closed).
const SOCKET_CODES = new Set(['EPIPE', 'ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'ETIMEDOUT']);

/** True when the error means the server is unreachable, failing over or too slow: worth a retry later. */
export function isOutage(error: unknown): boolean {
  if (error instanceof MongoNetworkError || error instanceof MongoServerSelectionError) return true;
  if (!(error instanceof MongoError)) {
    return error instanceof Error && SOCKET_CODES.has((error as NodeJS.ErrnoException).code ?? '');
  }
  if (TRANSIENT_NAMES.has(error.name)) return true;
  if (error.hasErrorLabel('RetryableWriteError')) return true;
  return typeof error.code === 'number' && TRANSIENT_CODES.has(error.code);
}

// Server codes that mean "up, but taking no writes until an operator acts".
const REFUSAL_CODES = new Set([
  14031, // OutOfDiskSpace
  8000, // AtlasError: over the space quota of the cluster
]);
// What servers say when the disk is full or the database read-only (mongod --readOnly, FerretDB's
// backends), when they say it without one of the codes above.
const REFUSAL_MESSAGE =
  /no space left on device|disk is full|disk full|out of disk|over your space quota|read-only mode|readonly database|database is read-only/i;

/** True when the server answers but refuses writes: out of disk, or read-only. */
export function isRefusal(error: unknown): boolean {
  if (!(error instanceof MongoError)) return false;
  if (typeof error.code === 'number' && REFUSAL_CODES.has(error.code)) return true;
  return REFUSAL_MESSAGE.test(error.message);
}

/** Runs one driver call within the store deadline; outages become storage-unavailable, refusals storage-refuses-writes. */
export const withinDeadline = <T>(operation: () => Promise<T>): Promise<T> =>
  sharedDeadline(operation(), isOutage, isRefusal);

/** Whether the error is a duplicate key: what a unique index answers to a taken id. */
export const isDuplicate = (error: unknown): boolean =>
  error instanceof MongoServerError && error.code === DUPLICATE_KEY;

/** Inserts the document within the deadline; resolves false when its key is taken. */
export const insertNew = <T extends Document>(
  collection: Collection<T>,
  document: OptionalUnlessRequiredId<T>,
): Promise<boolean> =>
  withinDeadline(() =>
    collection.insertOne(document).then(
      () => true,
      (error: unknown) => {
        if (isDuplicate(error)) return false;
        throw error;
      },
    ),
  );

/** A query value checked at run time: an object here could carry a query operator. */
export function text(value: string, what = 'ids and tenants'): string {
  if (typeof value !== 'string') throw new TypeError(`${what} must be strings`);
  return value;
}
