import { PlantError } from '../../domain/errors.js';

/** The longest a store operation may take before it answers storage-unavailable. */
export const OPERATION_DEADLINE_MS = 2000;

/** The domain's outage error; driver text never reaches a caller. */
const storageUnavailable = (): PlantError =>
  new PlantError('storage-unavailable', 'storage is unavailable');

/**
 * Settles as the store call does, but rejects with storage-unavailable once the deadline passes,
 * whatever the client does; errors that `isOutage` recognises become storage-unavailable too, and
 * the rest propagate.
 */
export async function withinDeadline<T>(
  work: Promise<T>,
  isOutage: (error: unknown) => boolean,
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
    throw isOutage(error) ? storageUnavailable() : error;
  } finally {
    clearTimeout(timer);
  }
}
