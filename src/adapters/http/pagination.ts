import { parsePlantId, type PlantId } from '../../domain/plant-id.js';
import { HttpProblem } from './http-problem.js';

const INT32_MAX = 2147483647;
const CANONICAL_DIGITS = /^(?:0|[1-9][0-9]*)$/;

const invalidQuery = (message: string) => new HttpProblem(400, 40003, message);

function single(name: string, value: string | string[] | undefined): string | undefined {
  if (Array.isArray(value)) throw invalidQuery(`${name} must be given at most once`);
  return value;
}

/** `limit`: canonical decimal digits from 0 to 2147483647; clamping to 1000 is the core's rule. */
export function parseLimit(value: string | string[] | undefined): number | undefined {
  const text = single('limit', value);
  if (text === undefined) return undefined;
  if (!CANONICAL_DIGITS.test(text) || text.length > 10 || Number(text) > INT32_MAX) {
    throw invalidQuery(`limit must be a whole number from 0 to ${INT32_MAX}, in plain digits`);
  }
  return Number(text);
}

// A cursor is the last id of a page, versioned and base64url-encoded: no server-side state, so it
// survives restarts and works on any instance; it only ever reaches into the caller's own tenant.
const CURSOR_PREFIX = '1:';

export const encodeCursor = (after: PlantId): string =>
  Buffer.from(CURSOR_PREFIX + after.toString()).toString('base64url');

/** Decodes a cursor made by encodeCursor, or throws the contract's 40003. */
export function parseCursor(value: string | string[] | undefined): PlantId | undefined {
  const text = single('cursor', value);
  if (text === undefined) return undefined;
  const decoded = /^[A-Za-z0-9_-]{1,40}$/.test(text)
    ? Buffer.from(text, 'base64url').toString()
    : '';
  const id = decoded.startsWith(CURSOR_PREFIX)
    ? parsePlantId(decoded.slice(CURSOR_PREFIX.length))
    : undefined;
  if (id === undefined || encodeCursor(id) !== text) {
    throw invalidQuery('cursor is not valid; follow the Link header of a previous page as given');
  }
  return id;
}

/** The RFC 8288 Link header to the page after `next`, on the same path and with the same limit. */
export function nextLink(path: string, limit: string | undefined, next: PlantId): string {
  const query = limit === undefined ? '' : `limit=${limit}&`;
  return `<${path}?${query}cursor=${encodeCursor(next)}>; rel="next"`;
}
