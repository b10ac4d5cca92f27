import { MongoError, MongoNetworkError, MongoServerSelectionError } from 'mongodb';
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

/** Runs one driver call within the store deadline; outages become storage-unavailable. */
export const withinDeadline = <T>(operation: () => Promise<T>): Promise<T> =>
  sharedDeadline(operation(), isOutage);
