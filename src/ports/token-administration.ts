import type { TokenRequest, TokenSummary } from '../domain/managed-token.js';

/** A token just issued: its text, shown once and stored nowhere, and what listings show of it. */
export interface IssuedToken {
  token: string;
  summary: TokenSummary;
}

/** What a revocation found: the id it resolved, and whether a token has that id. */
export interface Revocation {
  id: string;
  found: boolean;
}

/** Driving port: managed tokens; refusals are TokenRequestErrors, outages PlantErrors. */
export interface TokenAdministration {
  /** Issues a token for the tenant and scopes (never expiring without `expiresAt`); rejects with a TokenRequestError. */
  issue(request: TokenRequest & { expiresAt?: Date }): Promise<IssuedToken>;
  /** Resolves every token, or the tenant's, oldest first, never a token's text or digest. */
  list(tenant?: string): Promise<TokenSummary[]>;
  /** Revokes the token named by its id or text (a second revoke keeps the first time). */
  revoke(reference: string): Promise<Revocation>;
}
