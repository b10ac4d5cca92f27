import type { Caller } from '../../domain/caller.js';
import type { TokenVerifier } from '../../ports/token-verifier.js';
import { MANAGED_TOKEN_PREFIX } from '../../application/token-format.js';

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Told how each verification ended: by the kind of token, accepted, refused or failed (an outage). */
export type VerificationObserver = (
  kind: 'static' | 'managed' | 'jwt',
  result: 'accepted' | 'refused' | 'error',
) => void;

/**
 * Static tokens first (no I/O), then by shape: `pst_` to the managed verifier, three parts to the
 * JWT one, never both (a JWT costs no store lookup, a managed token no JWKS fetch). A token of no
 * known shape counts as a refused static one.
 */
export class CompositeTokenVerifier implements TokenVerifier {
  constructor(
    private readonly parts: {
      static: TokenVerifier;
      managed?: TokenVerifier | undefined;
      jwt?: TokenVerifier | undefined;
    },
    private readonly observe: VerificationObserver = () => {},
  ) {}

  /** Configured tokens are known without I/O. */
  verifyNow(token: string): Caller | undefined {
    const caller = this.parts.static.verifyNow?.(token);
    if (caller !== undefined) this.observe('static', 'accepted');
    return caller;
  }

  async verify(token: string): Promise<Caller | undefined> {
    const caller = await this.parts.static.verify(token);
    if (caller !== undefined) this.observe('static', 'accepted');
    else if (token.startsWith(MANAGED_TOKEN_PREFIX)) return this.counted('managed', token);
    else if (JWT_SHAPE.test(token)) return this.counted('jwt', token);
    else this.observe('static', 'refused');
    return caller;
  }

  private async counted(kind: 'managed' | 'jwt', token: string): Promise<Caller | undefined> {
    try {
      const caller = await this.parts[kind]?.verify(token);
      this.observe(kind, caller === undefined ? 'refused' : 'accepted');
      return caller;
    } catch (error) {
      this.observe(kind, 'error');
      throw error;
    }
  }
}
