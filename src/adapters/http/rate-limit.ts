import type { Caller } from '../../domain/caller.js';
import type { KeyedLimiter } from '../limits/keyed-limiter.js';
import { problem } from './error-catalogue.js';

/** Checks a caller against the tenant's budget; `spend` false checks without using it up. */
export type Admit = (caller: Caller, spend: boolean) => Promise<void>;

/**
 * The tenant's requests a second, counted by `limiter` (shared through the store when it lends
 * one). Returns a check that rejects with the contract's 429 when the tenant has none left, and
 * that uses up the budget only when asked to: a request refused for its scope costs the tenant
 * nothing.
 */
export function tenantRateLimit(limiter: KeyedLimiter): Admit {
  const perSecond = limiter.points;
  const admitted = (ms: number): void => {
    if (ms > 0) throw problem('rate-limited', { perSecond, wait: Math.ceil(ms / 1000) });
  };
  return (caller, spend) =>
    (spend ? limiter.consume(caller.tenant) : limiter.peek(caller.tenant)).then(admitted);
}
