import type { Caller } from '../../domain/caller.js';
import { isTokenActive, type ManagedToken } from '../../domain/managed-token.js';
import { isTenant } from '../../domain/tenant.js';
import type { Logger } from '../../ports/logger.js';
import type { TokenStore } from '../../ports/token-store.js';
import type { TokenVerifier } from '../../ports/token-verifier.js';
import { digestMatches, managedTokenId } from '../../application/token-format.js';

/**
 * A map whose entries live `ttlMs` and which holds at most `capacity` of them, dropping the
 * oldest first, so that no stream of distinct keys can grow it.
 */
class BoundedCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();

  constructor(
    private readonly capacity: number,
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined || entry.expires > this.now()) return entry?.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, expires: this.now() + this.ttlMs });
  }

  get size(): number {
    return this.entries.size;
  }
}

/** Tokens (and, separately, unknown ids) remembered per process. */
const TOKEN_CACHE_CAPACITY = 10_000;
/** Last use is written at most this often per token. */
const LAST_USED_RESOLUTION_MS = 60_000;

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
  private readonly known: BoundedCache<ManagedToken>;
  private readonly unknown: BoundedCache<true>;
  private readonly marked: BoundedCache<true>;
  private readonly pending = new Map<string, Promise<ManagedToken | undefined>>();
  private readonly now: () => number;

  constructor(
    private readonly store: TokenStore,
    private readonly options: ManagedTokenVerifierOptions,
  ) {
    const { ttlMs, capacity = TOKEN_CACHE_CAPACITY, now = Date.now } = options;
    this.now = now;
    this.known = new BoundedCache(capacity, ttlMs, now);
    // Unknown ids get a cache of their own, so a flood of made-up tokens cannot evict real ones.
    this.unknown = new BoundedCache(capacity, ttlMs, now);
    this.marked = new BoundedCache(capacity, LAST_USED_RESOLUTION_MS, now);
  }

  async verify(token: string): Promise<Caller | undefined> {
    const id = managedTokenId(token);
    if (id === undefined) return undefined;
    const record = await this.lookup(id);
    if (record === undefined || !digestMatches(token, record.digest)) return undefined;
    const now = this.now();
    if (!isTokenActive(record, new Date(now))) return undefined;
    this.noteUse(id, now);
    return Object.freeze({ tenant: record.tenant, scopes: Object.freeze([...record.scopes]) });
  }

  private async lookup(id: string): Promise<ManagedToken | undefined> {
    const cached = this.known.get(id);
    if (cached !== undefined) return cached;
    if (this.unknown.get(id) !== undefined) return undefined;
    // Concurrent requests with one token share one store round trip.
    let fetching = this.pending.get(id);
    if (fetching !== undefined) return fetching;
    fetching = this.store
      .find(id)
      .then((record) => this.usable(record))
      .finally(() => this.pending.delete(id));
    this.pending.set(id, fetching);
    const record = await fetching;
    if (record === undefined) this.unknown.set(id, true);
    else this.known.set(id, record);
    return record;
  }

  /** Tokens are checked when issued; a record edited in the store since is refused, not trusted. */
  private usable(record: ManagedToken | undefined): ManagedToken | undefined {
    if (record === undefined || isTenant(record.tenant)) return record;
    this.options.logger?.warn({ tokenId: record.id }, 'a managed token names an invalid tenant');
    return undefined;
  }

  private noteUse(id: string, now: number): void {
    if (this.marked.get(id) !== undefined) return;
    this.marked.set(id, true);
    this.store.markUsed(id, new Date(now)).catch((err: unknown) => {
      this.options.logger?.warn({ err, tokenId: id }, 'could not record a token use');
    });
  }
}
