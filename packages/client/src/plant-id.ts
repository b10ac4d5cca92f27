const MIN_ID = -(2n ** 63n);
const MAX_ID = 2n ** 63n - 1n;

/** An id as callers may give it: a bigint, or a number when it is a safe integer. */
export type PlantIdInput = bigint | number;

/**
 * The id as an exact int64 bigint. A number above 2^53 - 1 may already be rounded (2 ** 53 + 1
 * is 2 ** 53), so it is refused with a TypeError instead of being sent as something else.
 */
export function toPlantId(id: unknown): bigint {
  if (typeof id === 'number') {
    if (Number.isSafeInteger(id)) return BigInt(id);
    throw new TypeError(
      `plant id ${id} is not a safe integer, so it may be rounded already; pass a bigint (e.g. 9007199254740993n)`,
    );
  }
  if (typeof id !== 'bigint') {
    throw new TypeError(`plant id must be a bigint or a safe integer number, not ${typeof id}`);
  }
  if (id < MIN_ID || id > MAX_ID) {
    throw new RangeError(`plant id ${id} is outside int64 (${MIN_ID} to ${MAX_ID})`);
  }
  return id;
}
