import type { PlantId } from '../../../domain/plant-id.js';
import type { StoredPlant } from '../../../domain/plant.js';
import { tenantTag } from './redis-webhook-keys.js';

const SIGN_BIT = 2n ** 63n;
const MEMBER = /^([0-9a-f]{16}):(.*)$/s;

/**
 * An id as 16 lowercase hex digits of (id + 2^63): fixed width and sign bit flipped, so byte order
 * is numeric order over the whole int64 range. A sorted-set score is a double and would merge
 * 2^53 and 2^53+1, so ids are ordered by member bytes (BYLEX) and never pass through a number.
 */
export const encodeId = (id: PlantId): string => (id + SIGN_BIT).toString(16).padStart(16, '0');

export const decodeId = (hex: string): PlantId => BigInt(`0x${hex}`) - SIGN_BIT;

/**
 * A plant as one sorted-set member: `<encoded id>:<JSON {name, tag?}>`. The JSON keeps any
 * Unicode exactly and tells an empty tag from an absent one.
 */
export function encodeMember(plant: StoredPlant): string {
  const fields =
    plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag };
  return `${encodeId(plant.id)}:${JSON.stringify(fields)}`;
}

/** The inverse of encodeMember; throws on a member this store did not write. */
export function decodeMember(member: string): StoredPlant {
  const [, hex, json] = MEMBER.exec(member) ?? [];
  const { name, tag } = (JSON.parse(json ?? 'null') ?? {}) as { name?: unknown; tag?: unknown };
  if (typeof name !== 'string' || (tag !== undefined && typeof tag !== 'string')) {
    throw new Error('a plant in Redis is not in the form this store writes');
  }
  const id = decodeId(hex!);
  return tag === undefined ? { id, name } : { id, name, tag };
}

/** The lexical range holding exactly the members of one id: from `[<id>:` to `(<id>;` (';' follows ':'). */
export const idRange = (id: PlantId): [string, string] => {
  const hex = encodeId(id);
  return [`[${hex}:`, `(${hex};`];
};

/** The lexical lower bound of the ids above `after` (all of them when undefined). */
export const afterBound = (after: PlantId | undefined): string =>
  after === undefined ? '-' : `(${encodeId(after)};`;

/** The key of a tenant's plants, in the tenant's slot (see tenantTag). */
export const plantsKey = (prefix: string, tenant: string): string =>
  `${tenantTag(prefix, tenant)}:plants`;
