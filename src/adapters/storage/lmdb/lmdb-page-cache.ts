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
 * Decoded pages of plants by tenant, `limit` and `after`, each kept with the version of its
 * tenant's plants it was read at (lmdb-plant-store.ts: every write of a tenant's plants gives the
 * tenant a version never used before, in the write's transaction). A page is answered only for
 * the version the caller read in the same read transaction, so it is exactly what a read of the
 * range would give; any other version is a miss. Pages go first in, first out past the bounds.
 * The plants are frozen and each hit answers a new array: no caller can change what another reads.
 */
export class PageCache {
  private readonly pages = new Map<string, Map<number, Map<PlantId | undefined, CachedPage>>>();
  /** Every page held, oldest first (Map keeps insertion order). */
  private readonly order = new Set<CachedPage>();
  private held = 0;

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

  /** Keeps `plants` (frozen here) as the page read at `version`; they must not change after. */
  set(
    tenant: string,
    version: number,
    limit: number,
    after: PlantId | undefined,
    plants: StoredPlant[],
  ): void {
    if (this.bounds.entries < 1) return;
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
