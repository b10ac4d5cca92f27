import { clientKey } from './server/client-key.js';
import { problem } from './error-catalogue.js';

/** Addresses remembered at once; the oldest are forgotten first, so no flood of addresses grows it. */
const CAPACITY = 10_000;

/**
 * A token bucket of authentication failures (400 40005, 401) per client address: `perSecond`
 * failures a second with bursts of the same size. Valid requests cost nothing; an address whose
 * bucket is empty is answered 429 42902 before its token is looked at, so a flood of made-up
 * tokens costs neither store lookups nor signature checks.
 */
export class AuthFailureBudget {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws the contract's 429 when the address has used up its failures. */
  check(address: string | undefined): void {
    if (this.buckets.size === 0) return;
    const bucket = this.buckets.get(clientKey(address));
    if (bucket === undefined || this.refill(bucket) >= 1) return;
    const wait = Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond));
    throw problem('too-many-auth-failures', wait);
  }

  /** Counts one failed authentication against the address. */
  charge(address: string | undefined): void {
    const key = clientKey(address);
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      if (this.buckets.size >= CAPACITY) this.buckets.delete(this.buckets.keys().next().value!);
      bucket = { tokens: this.perSecond, at: this.now() };
      this.buckets.set(key, bucket);
    }
    this.refill(bucket);
    bucket.tokens -= 1;
  }

  private refill(bucket: { tokens: number; at: number }): number {
    const time = this.now();
    bucket.tokens = Math.min(
      this.perSecond,
      bucket.tokens + ((time - bucket.at) / 1000) * this.perSecond,
    );
    bucket.at = time;
    return bucket.tokens;
  }
}
