import type { KeyedLimiter } from '../limits/keyed-limiter.js';
import { clientKey } from './client-key.js';
import { problem } from './error-catalogue.js';

/**
 * Authentication failures (400 40005, 401) per client address, counted by `limiter` (shared
 * through the store when it lends one). Valid requests cost nothing, not even a round trip: only
 * a failure is counted, and an address that used up its budget is refused by this process alone
 * (429 42902, before its token is looked at) for the rest of the window, so that a flood of
 * made-up tokens costs neither store lookups nor signature checks.
 */
export class AuthFailureBudget {
  constructor(private readonly limiter: KeyedLimiter) {}

  /** Throws the contract's 429 when this process knows the address used up its failures. */
  check(address: string | undefined): void {
    const ms = this.limiter.refusedFor(clientKey(address));
    if (ms > 0) throw problem('too-many-auth-failures', Math.ceil(ms / 1000));
  }

  /** Counts one failed authentication; rejects with the contract's 429 when it was one too many. */
  async charge(address: string | undefined): Promise<void> {
    const ms = await this.limiter.consume(clientKey(address));
    if (ms > 0) throw problem('too-many-auth-failures', Math.ceil(ms / 1000));
  }
}
