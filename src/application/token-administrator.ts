import type { Scope } from '../domain/caller.js';
import { PlantError } from '../domain/errors.js';
import {
  checkTokenRequest,
  toSummary,
  TokenRequestError,
  type ManagedToken,
  type TokenRequest,
} from '../domain/managed-token.js';
import type { TokenAdministration } from '../ports/token-administration.js';
import type { TokenStore } from '../ports/token-store.js';
import { mintToken, referencedTokenId, tokenDigest } from './token-format.js';

/** The token administration over a token store: the one place tokens are minted. */
export class TokenAdministrator implements TokenAdministration {
  constructor(
    private readonly store: TokenStore,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async issue(request: TokenRequest & { expiresAt?: Date }) {
    const problem = checkTokenRequest(request);
    if (problem !== undefined) throw new TokenRequestError(problem);
    const createdAt = this.now();
    for (let attempt = 0; attempt < 3; attempt++) {
      const { id, token } = mintToken();
      const record: ManagedToken = {
        id,
        name: request.name ?? '',
        tenant: request.tenant,
        scopes: [...new Set(request.scopes as Scope[])],
        digest: tokenDigest(token),
        createdAt,
        ...(request.expiresAt && { expiresAt: request.expiresAt }),
      };
      if (await this.store.create(record)) return { token, summary: toSummary(record) };
    }
    // Three collisions of 64 random bits mean the store is not answering truthfully.
    throw new PlantError('storage-unavailable', 'the token store refused three fresh ids');
  }

  list(tenant?: string) {
    return this.store.list(tenant);
  }

  async revoke(reference: string) {
    const id = referencedTokenId(reference);
    if (id === undefined) {
      throw new TokenRequestError(`"${reference.slice(0, 24)}" is not a token id (16 hex digits)`);
    }
    return { id, found: await this.store.revoke(id, this.now()) };
  }
}
