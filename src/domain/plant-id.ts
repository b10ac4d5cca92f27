/** A plant id is an exact int64; it is a bigint everywhere so that no id ever passes through a double. */
export type PlantId = bigint;

export const MIN_PLANT_ID = -(2n ** 63n);
export const MAX_PLANT_ID = 2n ** 63n - 1n;

export const isPlantId = (value: unknown): value is PlantId =>
  typeof value === 'bigint' && value >= MIN_PLANT_ID && value <= MAX_PLANT_ID;

const CANONICAL_DECIMAL = /^-?(?:0|[1-9][0-9]{0,18})$/;

/** Reads a canonical decimal int64 (no sign on zero, no leading zeros); undefined otherwise. */
export function parsePlantId(text: string): PlantId | undefined {
  if (!CANONICAL_DECIMAL.test(text) || text === '-0') return undefined;
  const id = BigInt(text);
  return isPlantId(id) ? id : undefined;
}
