import { PlantError } from '../../domain/errors.js';

/** The longest a store operation may take before it answers storage-unavailable. */
export const OPERATION_DEADLINE_MS = 2000;

/**
 * The store call, but storage-unavailable past the deadline or on an `isOutage` error, and
 * storage-refuses-writes on an `isRefusal` one (so driver text never reaches a caller).
 */
export function withinDeadline<T>(
  work: Promise<T>,
  isOutage: (error: unknown) => boolean,
  isRefusal: (error: unknown) => boolean = () => false,
): Promise<T> {
  const unavailable = () => new PlantError('storage-unavailable', 'storage is unavailable');
  // One promise and one timer per operation, no async frame: every store call passes here. A
  // call that loses to the deadline still settles later; settling again is a no-op.
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(unavailable()), OPERATION_DEADLINE_MS);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (isOutage(error)) return reject(unavailable());
        if (!isRefusal(error)) return reject(error);
        const what =
          'storage takes no writes now (out of memory or disk, or read-only); nothing was written';
        reject(new PlantError('storage-refuses-writes', what));
      },
    );
  });
}
