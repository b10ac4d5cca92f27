import { createRequire } from 'node:module';
import type sortedBtree from 'sorted-btree';

// The reference servers share what "the same work" means: a Map from bearer token to caller, and
// an ordered map per tenant (the B+ tree the service's memory store uses too), keyed by a number id.

const BTree = (createRequire(import.meta.url)('sorted-btree') as typeof sortedBtree).default;

export interface RefPlant {
  name: string;
  tag?: string;
}

export interface RefCaller {
  tenant: string;
  scopes: string[];
}

/** PLANT_STORE_TOKENS, read once into a Map keyed by the token itself. */
export function loadTokens(env = process.env): Map<string, RefCaller> {
  const entries = JSON.parse(env.PLANT_STORE_TOKENS ?? '[]') as (RefCaller & { token: string })[];
  return new Map(entries.map(({ token, tenant, scopes }) => [token, { tenant, scopes }]));
}

export class RefStore {
  private readonly tenants = new Map<string, InstanceType<typeof BTree<number, RefPlant>>>();

  /** Inserts unless the id exists; false on a duplicate. */
  insert(tenant: string, id: number, plant: RefPlant): boolean {
    let tree = this.tenants.get(tenant);
    if (tree === undefined) {
      tree = new BTree<number, RefPlant>();
      this.tenants.set(tenant, tree);
    }
    return tree.setIfNotPresent(id, plant);
  }

  /** Deletes the plant with the id; false when there is none. */
  remove(tenant: string, id: number): boolean {
    return this.tenants.get(tenant)?.delete(id) ?? false;
  }

  /** The first `limit` plants by ascending id. */
  list(tenant: string, limit: number): RefPlant[] {
    const page: RefPlant[] = [];
    const tree = this.tenants.get(tenant);
    if (tree === undefined || limit <= 0) return page;
    for (const [, plant] of tree.entries()) {
      page.push(plant);
      if (page.length === limit) break;
    }
    return page;
  }
}

/** The plant fields of a parsed body, or undefined when they do not validate. */
export function validPlant(body: unknown): { id: number; plant: RefPlant } | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { id, name, tag } = body as Record<string, unknown>;
  if (!Number.isSafeInteger(id)) return undefined;
  if (typeof name !== 'string' || name.length < 1 || name.length > 256) return undefined;
  if (tag !== undefined && (typeof tag !== 'string' || tag.length > 64)) return undefined;
  return { id: id as number, plant: tag === undefined ? { name } : { name, tag } };
}

/** `limit`: absent 100, clamped to 1000; undefined when it is not a whole number. */
export function parseLimit(text: string | undefined | null): number | undefined {
  if (text === undefined || text === null) return 100;
  const limit = Number(text);
  return Number.isInteger(limit) && limit >= 0 ? Math.min(limit, 1000) : undefined;
}

/** The caller of an Authorization header, when the token is known and has the scope. */
export function authorize(
  tokens: Map<string, RefCaller>,
  header: string | undefined,
  scope: string,
): RefCaller | 401 | 403 {
  if (header === undefined || !header.startsWith('Bearer ')) return 401;
  const caller = tokens.get(header.slice(7));
  if (caller === undefined) return 401;
  return caller.scopes.includes(scope) ? caller : 403;
}
