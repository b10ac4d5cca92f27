import type { Caller } from '../../domain/caller.js';
import { HttpProblem } from './http-problem.js';

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * A token bucket per tenant, in this process: `perSecond` requests a second with bursts of the same
 * size. Returns a check that throws the contract's 429 when the tenant's bucket is empty.
 */
export function tenantRateLimit(
  perSecond: number,
  now: () => number = Date.now,
): (caller: Caller) => void {
  const buckets = new Map<string, Bucket>();
  return (caller) => {
    const time = now();
    const bucket = buckets.get(caller.tenant) ?? { tokens: perSecond, at: time };
    bucket.tokens = Math.min(perSecond, bucket.tokens + ((time - bucket.at) / 1000) * perSecond);
    bucket.at = time;
    buckets.set(caller.tenant, bucket);
    if (bucket.tokens < 1) {
      const wait = Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond));
      throw new HttpProblem(429, 42901, `rate limit of ${perSecond} requests a second exceeded`, {
        'Retry-After': String(wait),
      });
    }
    bucket.tokens -= 1;
  };
}
