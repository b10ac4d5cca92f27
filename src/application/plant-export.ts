import { jsonString } from '../domain/json-text.js';
import { compareTenants } from '../domain/tenant.js';
import type { PlantReader } from '../ports/plant-store.js';

/** What the first line of an export names itself (`format`) and the version of its lines. */
export const EXPORT_FORMAT = 'plant-store-export';
export const EXPORT_VERSION = 1;

export const DEFAULT_PAGE_SIZE = 1000;

export interface ExportOptions {
  /** Only these tenants (in code-point order, each once); all tenants holding plants when absent. */
  tenants?: readonly string[];
  /** Plants, and tenants, asked of the store per call (DEFAULT_PAGE_SIZE) */
  pageSize?: number;
  /** The time the header states (now) */
  takenAt?: Date;
}

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
 * The store's plants as NDJSON lines without newline, a page at a time: the header, a line per
 * plant by tenant (code-point order) then id, and the end line, whose count tells a file cut at a
 * line end from a whole one. From a PlantSnapshot, the plants of one instant.
 */
export async function* exportPlants(
  store: PlantReader,
  options: ExportOptions = {},
): AsyncGenerator<string, number> {
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const named = options.tenants && [...new Set(options.tenants)].sort(compareTenants);
  const which = named === undefined ? 'null' : `[${named.map(jsonString).join(',')}]`;
  const takenAt = (options.takenAt ?? new Date()).toISOString();
  yield `{"format":"${EXPORT_FORMAT}","version":${EXPORT_VERSION},"takenAt":"${takenAt}","tenants":${which}}`;
  let plants = 0;
  for await (const tenant of named ?? allTenants(store, pageSize)) {
    const head = `{"tenant":${jsonString(tenant)},"id":`;
    for (let after: bigint | undefined; ;) {
      const page = await store.list(tenant, after, pageSize);
      for (const { id, name, tag } of page) {
        const tagged = tag === undefined ? '' : `,"tag":${jsonString(tag)}`;
        yield `${head}${id},"name":${jsonString(name)}${tagged}}`;
      }
      plants += page.length;
      if (page.length < pageSize) break;
      after = page[page.length - 1]!.id;
    }
  }
  yield `{"format":"${EXPORT_FORMAT}","end":true,"plants":${plants}}`;
  return plants;
}
