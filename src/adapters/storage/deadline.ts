import { PlantError } from '../../domain/errors.js';

/** The longest a store operation may take before it answers storage-unavailable. */
export const OPERATION_DEADLINE_MS = 2000;

/** The domain's outage error; driver text never reaches a caller. */
const storageUnavailable = (): PlantError =>
  new PlantError('storage-unavailable', 'storage is unavailable');

/** The domain's "answers, but takes no writes" error; driver text never reaches a caller. */
const refusesWrites = (): PlantError =>
  new PlantError(
    'storage-refuses-writes',
    'storage takes no writes now (out of memory or disk, or read-only); nothing was written',
  );

/**
 * Settles as the store call does, with the errors `isOutage` recognises turned into
 * storage-unavailable and those `isRefusal` recognises into storage-refuses-writes: for clients
 * whose own timeout already bounds every call.
 */
export function withOutages<T>(
  work: Promise<T>,
  isOutage: (error: unknown) => boolean,
  isRefusal: (error: unknown) => boolean = () => false,
): Promise<T> {
  return work.catch((error: unknown) => {
    if (isOutage(error)) throw storageUnavailable();
    throw isRefusal(error) ? refusesWrites() : error;
  });
}

/**
 * Settles as the store call does, but rejects with storage-unavailable once the deadline passes,
 * whatever the client does; errors that `isOutage` recognises become storage-unavailable too,
 * those that `isRefusal` recognises storage-refuses-writes, and the rest propagate.
 */
export async function withinDeadline<T>(
  work: Promise<T>,
  isOutage: (error: unknown) => boolean,
  isRefusal: (error: unknown) => boolean = () => false,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  // A call that loses the race still settles later; its outcome is no longer anyone's business.
  work.catch(() => {});
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(storageUnavailable()), OPERATION_DEADLINE_MS);
  });
  try {
    return await Promise.race([work, deadline]);
  } catch (error) {
    if (isOutage(error)) throw storageUnavailable();
    throw isRefusal(error) ? refusesWrites() : error;
  } finally {
    clearTimeout(timer);
  }
}
