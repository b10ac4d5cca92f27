import type { Caller } from '../../domain/caller.js';
import { problem } from './error-catalogue.js';

interface Bucket {
  tokens: number;
  at: number;
}

/** Checks a caller against the tenant's budget; `spend` false checks without using it up. */
export type Admit = (caller: Caller, spend: boolean) => void;

/**
 * A token bucket per tenant, in this process: `perSecond` requests a second with bursts of the same
 * size. Returns a check that throws the contract's 429 when the tenant's bucket is empty, and that
 * uses up the budget only when asked to: a request refused for its scope costs the tenant nothing.
 */
export function tenantRateLimit(perSecond: number, now: () => number = Date.now): Admit {
  const buckets = new Map<string, Bucket>();
  return (caller, spend) => {
    const time = now();
    const bucket = buckets.get(caller.tenant) ?? { tokens: perSecond, at: time };
    bucket.tokens = Math.min(perSecond, bucket.tokens + ((time - bucket.at) / 1000) * perSecond);
    bucket.at = time;
    buckets.set(caller.tenant, bucket);
    if (bucket.tokens < 1) {
      const wait = Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond));
      throw problem('rate-limited', { perSecond, wait });
    }
    if (spend) bucket.tokens -= 1;
  };
}
