import { PlantError } from './errors.js';
import { isPlantId, MAX_PLANT_ID, MIN_PLANT_ID, type PlantId } from './plant-id.js';
import { codePoints, hasUnsafeCharacter } from './tenant.js';

/** A plant as callers see it: never with its id. */
export type Plant = { name: string; tag?: string | undefined };

/** A plant to create: `id` a bigint or a safe integer; an undefined tag is none. */
export type NewPlant = { id: PlantId | number; name: string; tag?: string | undefined };

/** A plant as a store keeps it: checked, its id a bigint. */
export type StoredPlant = { id: PlantId; name: string; tag?: string };

export const NAME_MAX = 256;
export const TAG_MAX = 64;

/** Whitelists the fields a caller may see. */
export const toPlant = (plant: StoredPlant): Plant =>
  plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag };

const invalid = (field: string, rule: string): PlantError =>
  new PlantError('invalid-plant', `${field} ${rule}`);

const UNSAFE = 'must not contain control characters, unpaired surrogates or bidirectional controls';

function checkText(field: string, value: unknown, min: number, max: number): string {
  if (typeof value !== 'string') throw invalid(field, 'must be a string');
  const length = codePoints(value);
  if (length < min || length > max) {
    throw invalid(field, `must be ${min} to ${max} characters long (got ${length})`);
  }
  // The labels' character rule: a name shows in an operator's lists as a tenant or label does.
  if (hasUnsafeCharacter(value)) throw invalid(field, UNSAFE);
  return value;
}

/** The id as a bigint; a number only when it is a safe integer, since a larger one is already rounded. */
function checkId(rawId: unknown): PlantId {
  if (rawId === undefined) throw invalid('id', 'is required');
  if (typeof rawId === 'number' && Number.isSafeInteger(rawId)) return BigInt(rawId);
  if (typeof rawId === 'number' && Number.isInteger(rawId)) {
    throw invalid(
      'id',
      `${rawId} is not a safe integer, so it may be rounded already; pass a bigint`,
    );
  }
  if (!isPlantId(rawId)) {
    throw invalid('id', `must be an integer from ${MIN_PLANT_ID} to ${MAX_PLANT_ID}`);
  }
  return rawId;
}

/** Checks a candidate plant field by field, keeping only known fields; `unknown`, for untyped callers. */
export function parseNewPlant(candidate: unknown): StoredPlant {
  if (typeof candidate !== 'object' || candidate === null || Array.isArray(candidate)) {
    throw new PlantError('invalid-plant', 'a plant must be an object with id and name');
  }
  const input = candidate as Readonly<Record<string, unknown>>;
  const id = checkId(input.id);
  if (input.name === undefined) throw invalid('name', 'is required');
  const name = checkText('name', input.name, 1, NAME_MAX);
  if (input.tag === undefined) return { id, name };
  return { id, name, tag: checkText('tag', input.tag, 0, TAG_MAX) };
}

/** Whether two plants hold the same content (name, and tag or its absence); ids are not compared. */
export const samePlant = (a: StoredPlant, b: StoredPlant): boolean =>
  a.name === b.name && a.tag === b.tag;

/** Tags one list may filter by (`?tags=` given more often is refused). */
export const MAX_FILTER_TAGS = 20;

/** A list's tag filter: none, or 1 to MAX_FILTER_TAGS tags a plant can hold; distinct, sorted. */
export function checkTagFilter(tags: unknown): string[] | undefined {
  if (tags === undefined) return undefined;
  if (!Array.isArray(tags) || tags.length === 0 || tags.length > MAX_FILTER_TAGS) {
    throw new PlantError(
      'invalid-query',
      `tags must be 1 to ${MAX_FILTER_TAGS} tags (each given as its own tags parameter)`,
    );
  }
  for (const tag of tags) {
    if (typeof tag !== 'string' || codePoints(tag) > TAG_MAX || hasUnsafeCharacter(tag)) {
      throw new PlantError(
        'invalid-query',
        `each tag must be a tag a plant can hold: 0 to ${TAG_MAX} characters, no control characters`,
      );
    }
  }
  return [...new Set(tags as string[])].sort();
}

const byId = (a: StoredPlant, b: StoredPlant): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The first `limit` plants, by ascending id, of pages that each hold distinct plants by ascending id (one per tag). */
export const firstById = (pages: readonly StoredPlant[][], limit: number): StoredPlant[] =>
  pages.length === 1 ? pages[0]!.slice(0, limit) : pages.flat().sort(byId).slice(0, limit);
