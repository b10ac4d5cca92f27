import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { PlantError } from '../../domain/errors.js';
import type { Scope } from '../../domain/caller.js';
import {
  checkTokenRequest,
  type ManagedToken,
  type TokenRequest,
} from '../../domain/managed-token.js';
import type { TokenStore } from '../../ports/token-store.js';

/**
 * A managed token is `pst_<id>_<secret>`: a recognisable prefix for secret scanners, a public id
 * (16 hex digits, 64 random bits) that names its record, and 32 random bytes (256 bits) of
 * base64url secret. Every character is in the RFC 6750 token alphabet.
 */
export const MANAGED_TOKEN_PREFIX = 'pst_';
export const MANAGED_TOKEN_PATTERN = /^pst_([0-9a-f]{16})_[A-Za-z0-9_-]{43}$/;

/** base64url SHA-256 of the whole token text: what the store keeps instead of the token. */
export const tokenDigest = (token: string): string =>
  createHash('sha256').update(token).digest('base64url');

/** The id of a well-formed managed token, or undefined; looks only at its shape. */
export function managedTokenId(token: string): string | undefined {
  return MANAGED_TOKEN_PATTERN.exec(token)?.[1];
}

/** Whether the token's digest is the stored one, in time independent of where they differ. */
export function digestMatches(token: string, stored: string): boolean {
  const presented = Buffer.from(tokenDigest(token));
  const expected = Buffer.from(stored);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

export interface IssuedToken {
  /** The token text: shown once, never stored. */
  token: string;
  record: ManagedToken;
}

/** Creates and stores a new token; rejects with a ValidationError for a bad request. */
export async function issueToken(
  store: TokenStore,
  request: TokenRequest & { expiresAt?: Date },
  now: Date = new Date(),
): Promise<IssuedToken> {
  const problem = checkTokenRequest(request);
  if (problem !== undefined) throw new TokenRequestError(problem);
  for (let attempt = 0; attempt < 3; attempt++) {
    const id = randomBytes(8).toString('hex');
    const token = `${MANAGED_TOKEN_PREFIX}${id}_${randomBytes(32).toString('base64url')}`;
    const record: ManagedToken = {
      id,
      name: request.name ?? '',
      tenant: request.tenant,
      scopes: [...new Set(request.scopes as Scope[])],
      digest: tokenDigest(token),
      createdAt: now,
      ...(request.expiresAt && { expiresAt: request.expiresAt }),
    };
    if (await store.create(record)) return { token, record };
  }
  // Three collisions of 64 random bits mean the store is not answering truthfully.
  throw new PlantError('storage-unavailable', 'the token store refused three fresh ids');
}

/** A token request that cannot be issued; its message is one line for the operator. */
export class TokenRequestError extends Error {
  override name = 'TokenRequestError';
}
