import type { PlantId } from '../../../domain/plant-id.js';
import type { StoredPlant } from '../../../domain/plant.js';

/** How much the cache holds at most: pages, and their estimated bytes. */
export interface PageCacheBounds {
  readonly entries: number;
  readonly bytes: number;
}

/** 1,024 pages and 8 MiB: a page of 20 short plants is ~2 KB, the largest (1,001 plants) ~0.5 MB. */
export const PAGE_CACHE_BOUNDS: PageCacheBounds = { entries: 1024, bytes: 8 * 1024 * 1024 };

// What a plant and a page cost beyond their strings' UTF-16 (objects, the id, the array slot).
const PLANT_BYTES = 96;
const PAGE_BYTES = 128;

// Pages missed, as a hash of (tenant, limit, after), the version missed at and when (a count of
// misses), in typed arrays (nothing for the collector to follow): a page is kept only when missed
// again at the same version within as many misses as the cache holds pages, the distance at which
// a kept page could still be answered before it goes. A page read once (paging through, many
// tenants, more pages in turn than the cache holds) would otherwise be kept and evicted, each one
// surviving into the old generation: with every page a miss, the collections cost 2 to 3 times the
// read itself (perf: bench/README.md, "The embedded store (LMDB)").
const SEEN_SLOTS = 4096;

/** A 32-bit hash of a page's key (FNV-1a over the tenant, then the limit and the id's halves). */
function pageHash(tenant: string, limit: number, after: PlantId | undefined): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < tenant.length; i++) hash = Math.imul(hash ^ tenant.charCodeAt(i), 0x01000193);
  // Beyond 2^53 the number is rounded: only a hash, a collision costs a page kept or not, never a
  // wrong answer (the cache answers by the exact key).
  const id = after === undefined ? -1 : Number(after);
  hash = Math.imul(hash ^ limit, 0x01000193);
  hash = Math.imul(hash ^ (id | 0), 0x01000193);
  return Math.imul(hash ^ ((id / 0x100000000) | 0), 0x01000193);
}

/** One page as read at `version` of its tenant's plants; its plants frozen. */
interface CachedPage {
  readonly version: number;
  readonly plants: readonly StoredPlant[];
  readonly bytes: number;
  readonly tenant: string;
  readonly limit: number;
  readonly after: PlantId | undefined;
}

/**
 * Decoded pages of plants by tenant, `limit` and `after` (from their second miss, above), each
 * kept with the version of its tenant's plants it was read at (lmdb-plant-store.ts: every write of
 * a tenant's plants gives them a version never given before, in the write's transaction). A page
 * is answered only at the version the caller read in the same read transaction, so it is exactly
 * what a read of the range would give; any other version is a miss. Pages go first in, first out
 * past the bounds. The plants are frozen and each hit answers a new array: no caller can change
 * what another reads.
 */
export class PageCache {
  private readonly pages = new Map<string, Map<number, Map<PlantId | undefined, CachedPage>>>();
  /** Every page held, oldest first (Map keeps insertion order). */
  private readonly order = new Set<CachedPage>();
  private held = 0;
  private readonly seenHash = new Int32Array(SEEN_SLOTS);
  /** The version each slot's page was missed at; 0 for none (versions start at 1). */
  private readonly seenVersion = new Float64Array(SEEN_SLOTS);
  private readonly seenAt = new Float64Array(SEEN_SLOTS);
  private misses = 0;

  constructor(private readonly bounds: PageCacheBounds = PAGE_CACHE_BOUNDS) {}

  /** The page read at `version`, as a new array; undefined when not held at that version. */
  get(
    tenant: string,
    version: number,
    limit: number,
    after: PlantId | undefined,
  ): StoredPlant[] | undefined {
    const page = this.pages.get(tenant)?.get(limit)?.get(after);
    return page !== undefined && page.version === version ? page.plants.slice() : undefined;
  }

  /**
   * Keeps `plants` (frozen here) as the page read at `version` when it was missed at that version
   * before (else only notes the miss); they must not change after.
   */
  set(
    tenant: string,
    version: number,
    limit: number,
    after: PlantId | undefined,
    plants: StoredPlant[],
  ): void {
    if (this.bounds.entries < 1) return;
    const hash = pageHash(tenant, limit, after);
    const slot = hash & (SEEN_SLOTS - 1);
    const missed = ++this.misses;
    if (
      this.seenHash[slot] !== hash ||
      this.seenVersion[slot] !== version ||
      missed - this.seenAt[slot]! > this.bounds.entries
    ) {
      this.seenHash[slot] = hash;
      this.seenVersion[slot] = version;
      this.seenAt[slot] = missed;
      return;
    }
    let bytes = PAGE_BYTES + tenant.length * 2;
    for (const plant of plants) {
      bytes += PLANT_BYTES + (plant.name.length + (plant.tag?.length ?? 0)) * 2;
      Object.freeze(plant);
    }
    if (bytes > this.bounds.bytes) return;
    const replaced = this.pages.get(tenant)?.get(limit)?.get(after);
    if (replaced !== undefined) this.forget(replaced);
    let byLimit = this.pages.get(tenant);
    if (byLimit === undefined) this.pages.set(tenant, (byLimit = new Map()));
    let byAfter = byLimit.get(limit);
    if (byAfter === undefined) byLimit.set(limit, (byAfter = new Map()));
    const page: CachedPage = {
      version,
      plants: Object.freeze(plants.slice()),
      bytes,
      tenant,
      limit,
      after,
    };
    byAfter.set(after, page);
    this.order.add(page);
    this.held += bytes;
    while (this.order.size > this.bounds.entries || this.held > this.bounds.bytes) {
      this.forget(this.order.values().next().value!);
    }
  }

  /** Pages and estimated bytes held. */
  get size(): { entries: number; bytes: number } {
    return { entries: this.order.size, bytes: this.held };
  }

  private forget(page: CachedPage): void {
    this.order.delete(page);
    this.held -= page.bytes;
    const byLimit = this.pages.get(page.tenant)!;
    const byAfter = byLimit.get(page.limit)!;
    byAfter.delete(page.after);
    if (byAfter.size === 0) byLimit.delete(page.limit);
    if (byLimit.size === 0) this.pages.delete(page.tenant);
  }
}
