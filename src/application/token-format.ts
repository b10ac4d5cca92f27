import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * A managed token is `pst_<id>_<secret>`: a prefix for secret scanners, a public id (64 random
 * bits, hex) naming its record, 32 random bytes of base64url secret: RFC 6750's token alphabet.
 */
export const MANAGED_TOKEN_PREFIX = 'pst_';
export const MANAGED_TOKEN_PATTERN = /^pst_([0-9a-f]{16})_[A-Za-z0-9_-]{43}$/;

/** base64url SHA-256 of the whole token text: what the store keeps instead of the token. */
export const tokenDigest = (token: string): string =>
  createHash('sha256').update(token).digest('base64url');

/** The id of a well-formed managed token, or undefined; looks only at its shape. */
export const managedTokenId = (token: string): string | undefined =>
  MANAGED_TOKEN_PATTERN.exec(token)?.[1];

/** The id a reference names: the id itself (16 hex digits) or a whole token; undefined otherwise. */
export const referencedTokenId = (reference: string): string | undefined =>
  /^[0-9a-f]{16}$/.test(reference) ? reference : managedTokenId(reference);

/** Whether the token's digest is the stored one, in time independent of where they differ. */
export function digestMatches(token: string, stored: string): boolean {
  const presented = Buffer.from(tokenDigest(token));
  const expected = Buffer.from(stored);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

export function mintToken(): { id: string; token: string } {
  const id = randomBytes(8).toString('hex');
  return { id, token: `${MANAGED_TOKEN_PREFIX}${id}_${randomBytes(32).toString('base64url')}` };
}
