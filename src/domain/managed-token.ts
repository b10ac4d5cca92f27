import { isScope, type Scope } from './caller.js';
import { checkLabel, checkTenant, codePoints } from './tenant.js';

/** A token the service issued, as it is kept: never the token itself, only its SHA-256 digest. */
export interface ManagedToken {
  /** Public, and part of the token text, so a leaked token names its own record. */
  readonly id: string;
  readonly name: string;
  readonly tenant: string;
  readonly scopes: readonly Scope[];
  /** Base64url SHA-256 of the whole token text */
  readonly digest: string;
  readonly createdAt: Date;
  readonly expiresAt?: Date;
  readonly revokedAt?: Date;
  readonly lastUsedAt?: Date;
}

/** What may leave a store in a listing (`tokens list`): everything but the digest. */
export type TokenSummary = Omit<ManagedToken, 'digest'>;

export const toSummary = ({ digest: _digest, ...rest }: ManagedToken): TokenSummary => rest;

export interface TokenRequest {
  tenant: string;
  scopes: readonly string[];
  name?: string;
}

const MAX_TOKEN_NAME_LENGTH = 100;

/** A token request that cannot be issued, or a revocation that names no token; one line for the operator. */
export class TokenRequestError extends Error {
  override name = 'TokenRequestError';
}

export function checkTokenRequest({ tenant, scopes, name = '' }: TokenRequest): string | undefined {
  if (tenant === '') return 'a tenant is required (--tenant T)';
  const badTenant = checkTenant(tenant);
  if (badTenant !== undefined) return `the tenant ${badTenant}`;
  if (scopes.length === 0) return 'at least one scope is required (--scope plants:read)';
  const unknown = scopes.find((scope) => !isScope(scope));
  if (unknown !== undefined) {
    return `unknown scope "${unknown}"; use plants:read, plants:write or metrics:read`;
  }
  // A name is shown by `tokens list`: it must not be able to rewrite the terminal or spoof another.
  if (codePoints(name) > MAX_TOKEN_NAME_LENGTH) {
    return `the name must be at most ${MAX_TOKEN_NAME_LENGTH} characters`;
  }
  const badName = checkLabel(name);
  return badName === undefined ? undefined : `the name ${badName}`;
}

/** Whether the token may act at `now`: not revoked and not expired (it expires at `expiresAt`). */
export const isTokenActive = (token: TokenSummary, now: Date): boolean =>
  token.revokedAt === undefined &&
  (token.expiresAt === undefined || token.expiresAt.getTime() > now.getTime());
