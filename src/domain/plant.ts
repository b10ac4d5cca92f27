import { PlantError } from './errors.js';
import { isPlantId, MAX_PLANT_ID, MIN_PLANT_ID, type PlantId } from './plant-id.js';

/** A plant as callers see it: never with its id. */
export type Plant = { name: string; tag?: string };

/** A plant to create. */
export type NewPlant = { id: PlantId; name: string; tag?: string };

/** A plant as a store keeps it. */
export type StoredPlant = NewPlant;

export const NAME_MAX = 256;
export const TAG_MAX = 64;

/** Whitelists the fields a caller may see. */
export const toPlant = (plant: StoredPlant): Plant =>
  plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag };

// Cc (C0, DEL, C1) and lone surrogates (Cs only matches unpaired ones under the u flag).
const FORBIDDEN_CHARACTER = /[\p{Cc}\p{Cs}]/u;

const SURROGATE_PAIR = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;

const codePointLength = (text: string): number =>
  text.length - (text.match(SURROGATE_PAIR)?.length ?? 0);

function checkText(field: string, value: unknown, min: number, max: number): string {
  if (typeof value !== 'string') throw invalid(field, 'must be a string');
  const length = codePointLength(value);
  if (length < min || length > max) {
    throw invalid(field, `must be ${min} to ${max} characters long (got ${length})`);
  }
  if (FORBIDDEN_CHARACTER.test(value)) {
    throw invalid(field, 'must not contain control characters or unpaired surrogates');
  }
  return value;
}

const invalid = (field: string, rule: string): PlantError =>
  new PlantError('invalid-plant', `${field} ${rule}`);

/**
 * Checks a candidate plant field by field and returns only the known fields.
 * `id` may be a bigint, or a number when it is a safe integer (a convenience for embedders).
 */
export function parseNewPlant(input: Readonly<Record<string, unknown>>): NewPlant {
  const rawId = input.id;
  const id = typeof rawId === 'number' && Number.isSafeInteger(rawId) ? BigInt(rawId) : rawId;
  if (id === undefined) throw invalid('id', 'is required');
  if (!isPlantId(id)) {
    throw invalid('id', `must be an integer from ${MIN_PLANT_ID} to ${MAX_PLANT_ID}`);
  }
  if (input.name === undefined) throw invalid('name', 'is required');
  const name = checkText('name', input.name, 1, NAME_MAX);
  if (input.tag === undefined) return { id, name };
  return { id, name, tag: checkText('tag', input.tag, 0, TAG_MAX) };
}
