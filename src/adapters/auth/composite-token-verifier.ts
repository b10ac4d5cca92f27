import type { Caller } from '../../domain/caller.js';
import type { TokenVerifier } from '../../ports/token-verifier.js';
import { MANAGED_TOKEN_PREFIX } from './managed-tokens.js';

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * Static tokens first (no I/O), then by shape: `pst_` tokens to the managed verifier, three-part
 * tokens to the JWT verifier when one is configured. A token goes to at most one of the last two,
 * so a JWT never costs a store lookup and a managed token never a JWKS fetch.
 */
export class CompositeTokenVerifier implements TokenVerifier {
  constructor(
    private readonly parts: {
      static: TokenVerifier;
      managed?: TokenVerifier | undefined;
      jwt?: TokenVerifier | undefined;
    },
  ) {}

  async verify(token: string): Promise<Caller | undefined> {
    const caller = await this.parts.static.verify(token);
    if (caller !== undefined) return caller;
    if (token.startsWith(MANAGED_TOKEN_PREFIX)) return this.parts.managed?.verify(token);
    if (JWT_SHAPE.test(token)) return this.parts.jwt?.verify(token);
    return undefined;
  }
}
