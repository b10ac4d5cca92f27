import type { PlantId } from '../../../domain/plant-id.js';

const SIGN_BIT = 2n ** 63n;
const ID_BYTES = 8;
// Lone surrogates would become U+FFFD in UTF-8 and so merge two tenants into one key.
const LONE_SURROGATE = /\p{Cs}/u;

/** A tenant (or tag) as key bytes: UTF-8, whose byte order is code-point order (compareTenants). */
export function tenantKey(tenant: string): Buffer {
  // Checked at run time too: a caller without types could pass anything.
  if (typeof tenant !== 'string') throw new TypeError('tenant must be a string');
  if (LONE_SURROGATE.test(tenant)) throw new Error('a tenant name must be well-formed Unicode');
  return Buffer.from(tenant, 'utf8');
}

/**
 * The start of every key of one tenant: its UTF-8 length (2 bytes), then the UTF-8. The length
 * keeps tenant `a` from being a prefix of tenant `ab`'s keys.
 */
export function tenantPrefix(tenant: string): Buffer {
  const name = tenantKey(tenant);
  const prefix = Buffer.allocUnsafe(2 + name.length);
  prefix.writeUInt16BE(name.length, 0);
  name.copy(prefix, 2);
  return prefix;
}

/**
 * Where the tag index starts in the plants database: a length no tenant's prefix has (a key holds
 * at most 1978 bytes), so that the index sorts after every plant.
 */
export const TAG_INDEX = Buffer.from([0xff, 0xff]);

/**
 * The start of the index keys of a tenant's plants holding `tag`: TAG_INDEX, the tenant's prefix,
 * the tag's UTF-8 length (2 bytes) and UTF-8; plantKey of it orders them by id as the plants.
 */
export function tagPrefix(prefix: Buffer, tag: string): Buffer {
  const name = tenantKey(tag);
  const key = Buffer.allocUnsafe(TAG_INDEX.length + prefix.length + 2 + name.length);
  TAG_INDEX.copy(key, 0);
  prefix.copy(key, TAG_INDEX.length);
  key.writeUInt16BE(name.length, TAG_INDEX.length + prefix.length);
  name.copy(key, TAG_INDEX.length + prefix.length + 2);
  return key;
}

/** A tenant's keys: its plants' prefix, a key above every one of them, and its count's key. */
export interface TenantKeys {
  readonly prefix: Buffer;
  readonly end: Buffer;
  readonly counted: Buffer;
}

export function tenantKeys(tenant: string): TenantKeys {
  const prefix = tenantPrefix(tenant);
  return { prefix, end: prefixEnd(prefix), counted: prefix.subarray(2) };
}

/**
 * A plant's key: the tenant's prefix, then the id as 8 big-endian bytes of (id + 2^63), fixed
 * width with the sign bit flipped, so that byte order is numeric order over the whole int64 range.
 */
export function plantKey(prefix: Buffer, id: PlantId): Buffer {
  if (typeof id !== 'bigint') throw new TypeError('id must be a bigint');
  const key = Buffer.allocUnsafe(prefix.length + ID_BYTES);
  prefix.copy(key, 0);
  key.writeBigUInt64BE(BigInt.asUintN(64, id + SIGN_BIT), prefix.length);
  return key;
}

const TWO_32 = 2 ** 32;
// Ids within ±2^53 are read as two 32-bit halves and one BigInt: a page reads 20 to 1000 of them,
// and readBigUInt64BE with a BigInt subtraction costs twice as much (perf: bench/README.md, LMDB).
const SAFE_HIGH = 2 ** 21;

/** The id a plant key ends with. */
export function idOf(key: Buffer): PlantId {
  const at = key.length - ID_BYTES;
  const high = (key.readUInt32BE(at) ^ 0x80000000) | 0;
  if (high >= -SAFE_HIGH && high < SAFE_HIGH) {
    return BigInt(high * TWO_32 + key.readUInt32BE(at + 4));
  }
  return key.readBigUInt64BE(at) - SIGN_BIT;
}

/** Above every plant key of the tenant: its prefix and one byte more than an id holds. */
export const prefixEnd = (prefix: Buffer): Buffer =>
  Buffer.concat([prefix, Buffer.alloc(ID_BYTES + 1, 0xff)]);

/** The smallest key above `key` in byte order. */
export const justAbove = (key: Buffer): Buffer => Buffer.concat([key, Buffer.from([0])]);
