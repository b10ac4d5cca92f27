import type { ManagedToken, TokenSummary } from '../domain/managed-token.js';
import { portMethods } from './port-methods.js';

/** Driven port: managed tokens, never their text; outages are `storage-unavailable` PlantErrors. */
export interface TokenStore {
  /** Stores the token; resolves false (storing nothing) when a token with its id exists. */
  create(token: ManagedToken): Promise<boolean>;
  /** Resolves the token with this id, revoked and expired ones included, or undefined. */
  find(id: string): Promise<ManagedToken | undefined>;
  /** Resolves every token, or the tenant's, oldest first, without digests. */
  list(tenant?: string): Promise<TokenSummary[]>;
  /** Marks the token revoked (a second revoke keeps the first time); resolves false when absent. */
  revoke(id: string, at: Date): Promise<boolean>;
  /** Records a use at `at` unless a later one is recorded; resolves quietly when absent. */
  markUsed(id: string, at: Date): Promise<void>;
  /** Resolves when the store can serve lookups; rejects with a `storage-unavailable` PlantError otherwise. */
  ping(): Promise<void>;
}

/** Every method of TokenStore (checked when it compiles): what store decorators forward. */
export const TOKEN_STORE_METHODS = portMethods<TokenStore>()([
  'create',
  'find',
  'list',
  'revoke',
  'markUsed',
  'ping',
]);
