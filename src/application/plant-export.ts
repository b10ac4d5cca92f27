import { jsonString } from '../domain/json-text.js';
import type { StoredPlant } from '../domain/plant.js';
import { compareTenants } from '../domain/tenant.js';
import type { PlantReader } from '../ports/plant-store.js';

/** What the first line of an export names itself (`format`) and the version of its lines. */
export const EXPORT_FORMAT = 'plant-store-export';
export const EXPORT_VERSION = 1;

/** Plants (and tenants) read from the store per call. */
export const DEFAULT_PAGE_SIZE = 1000;

export interface ExportOptions {
  /** Only these tenants (in code-point order, each once); all tenants holding plants when absent. */
  tenants?: readonly string[];
  /** Plants, and tenants, asked of the store per call. Default DEFAULT_PAGE_SIZE. */
  pageSize?: number;
  /** The time the header states. Default: now. */
  takenAt?: Date;
}

/** The header: what the file is, when it was taken, which tenants it holds (null: all). */
export function exportHeader(takenAt: Date, tenants: readonly string[] | undefined): string {
  const which = tenants === undefined ? 'null' : `[${tenants.map(jsonString).join(',')}]`;
  return `{"format":"${EXPORT_FORMAT}","version":${EXPORT_VERSION},"takenAt":"${takenAt.toISOString()}","tenants":${which}}`;
}

/** The last line: how many plant lines came before it, so that a file cut at a line end is told from a whole one. */
export const exportEnd = (plants: number): string =>
  `{"format":"${EXPORT_FORMAT}","end":true,"plants":${plants}}`;

/** One plant line: `{"tenant","id","name","tag"}`, the id an exact integer literal. */
export const plantLine = (tenant: string, plant: StoredPlant): string =>
  `{"tenant":${jsonString(tenant)},"id":${plant.id},"name":${jsonString(plant.name)}${
    plant.tag === undefined ? '' : `,"tag":${jsonString(plant.tag)}`
  }}`;

/** Every tenant holding plants, a page at a time. */
async function* allTenants(store: PlantReader, pageSize: number): AsyncGenerator<string> {
  let after: string | undefined;
  for (;;) {
    const page = await store.tenants(after, pageSize);
    yield* page;
    if (page.length < pageSize) return;
    after = page[page.length - 1];
  }
}

/**
 * The store's plants as NDJSON lines (without their newline): the header, one line per plant by
 * tenant (code-point order) then ascending id, and the end line. Pages through the store, so
 * memory stays flat whatever its size. From a PlantSnapshot, the plants of one instant; from a
 * PlantStore, a plant written meanwhile may or may not be in it.
 */
export async function* exportPlants(
  store: PlantReader,
  options: ExportOptions = {},
): AsyncGenerator<string, number> {
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const named =
    options.tenants === undefined ? undefined : [...new Set(options.tenants)].sort(compareTenants);
  yield exportHeader(options.takenAt ?? new Date(), named);
  let plants = 0;
  for await (const tenant of named ?? allTenants(store, pageSize)) {
    let after: bigint | undefined;
    for (;;) {
      const page = await store.list(tenant, after, pageSize);
      for (const plant of page) yield plantLine(tenant, plant);
      plants += page.length;
      if (page.length < pageSize) break;
      after = page[page.length - 1]!.id;
    }
  }
  yield exportEnd(plants);
  return plants;
}
