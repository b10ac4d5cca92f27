import type { Caller } from '../../domain/caller.js';
import { isTokenActive, type ManagedToken } from '../../domain/managed-token.js';
import { isTenant } from '../../domain/tenant.js';
import type { Logger } from '../../ports/logger.js';
import type { TokenStore } from '../../ports/token-store.js';
import type { TokenVerifier } from '../../ports/token-verifier.js';
import { digestMatches, managedTokenId } from '../../application/token-format.js';

/** Tokens (and, separately, unknown ids) remembered per process. */
const TOKEN_CACHE_CAPACITY = 10_000;
/** Last use is written at most this often per token. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** Entries by key, oldest first, each with when it expires. */
type Cache<V> = Map<string, { value: V; expires: number }>;

export interface ManagedTokenVerifierOptions {
  /** How long a looked-up token (or its absence) is trusted: the bound on revocation delay. */
  ttlMs: number;
  capacity?: number;
  now?: () => number;
  logger?: Logger;
}

/**
 * Managed tokens: lookup by the token's public id through a short-lived, bounded cache (so a busy
 * token costs one store round trip per TTL, not one per request), then the SHA-256 digest of the
 * whole token compared in constant time. Expiry is checked on every request, never cached.
 */
export class ManagedTokenVerifier implements TokenVerifier {
  private readonly known: Cache<ManagedToken> = new Map();
  // Unknown ids get a cache of their own, so a flood of made-up tokens cannot evict real ones.
  private readonly unknown: Cache<true> = new Map();
  private readonly marked: Cache<true> = new Map();
  private readonly pending = new Map<string, Promise<ManagedToken | undefined>>();
  private readonly now: () => number;

  constructor(
    private readonly store: TokenStore,
    private readonly options: ManagedTokenVerifierOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  async verify(token: string): Promise<Caller | undefined> {
    const id = managedTokenId(token);
    if (id === undefined) return undefined;
    const record = await this.lookup(id);
    if (record === undefined || !digestMatches(token, record.digest)) return undefined;
    const now = this.now();
    if (!isTokenActive(record, new Date(now))) return undefined;
    if (this.get(this.marked, id) === undefined) {
      this.set(this.marked, id, true, LAST_USED_RESOLUTION_MS);
      this.store.markUsed(id, new Date(now)).catch((err: unknown) => {
        this.options.logger?.warn({ err, tokenId: id }, 'could not record a token use');
      });
    }
    return Object.freeze({ tenant: record.tenant, scopes: Object.freeze([...record.scopes]) });
  }

  private async lookup(id: string): Promise<ManagedToken | undefined> {
    const cached = this.get(this.known, id);
    if (cached !== undefined || this.get(this.unknown, id) !== undefined) return cached;
    // Concurrent requests with one token share one store round trip.
    let fetching = this.pending.get(id);
    if (fetching !== undefined) return fetching;
    fetching = this.store
      .find(id)
      .then((record) => {
        // Tokens are checked when issued; a record edited in the store since is refused.
        if (record === undefined || isTenant(record.tenant)) return record;
        this.options.logger?.warn({ tokenId: id }, 'a managed token names an invalid tenant');
        return undefined;
      })
      .finally(() => this.pending.delete(id));
    this.pending.set(id, fetching);
    const record = await fetching;
    if (record === undefined) this.set(this.unknown, id, true, this.options.ttlMs);
    else this.set(this.known, id, record, this.options.ttlMs);
    return record;
  }

  private get<V>(cache: Cache<V>, key: string): V | undefined {
    const entry = cache.get(key);
    if (entry === undefined || entry.expires > this.now()) return entry?.value;
    cache.delete(key);
    return undefined;
  }

  /** At most `capacity` entries, the oldest dropped first: no stream of keys can grow it. */
  private set<V>(cache: Cache<V>, key: string, value: V, ttlMs: number): void {
    cache.delete(key);
    if (cache.size >= (this.options.capacity ?? TOKEN_CACHE_CAPACITY)) {
      cache.delete(cache.keys().next().value!);
    }
    cache.set(key, { value, expires: this.now() + ttlMs });
  }
}
