import { createHash } from 'node:crypto';
import type { RefCaller } from './reference-store.js';

// What the peers with the service's features share: bearer tokens looked up by their SHA-256
// digest, as the service does (the token itself is never a key), the service's answers for the
// refusals the bench drives, and the request id rule of the contract.

/** PLANT_STORE_TOKENS, read once into a Map keyed by the hex SHA-256 digest of each token. */
export function loadTokenDigests(env = process.env): Map<string, RefCaller> {
  const entries = JSON.parse(env.PLANT_STORE_TOKENS ?? '[]') as (RefCaller & { token: string })[];
  return new Map(entries.map(({ token, tenant, scopes }) => [digest(token), { tenant, scopes }]));
}

export const digest = (token: string): string => createHash('sha256').update(token).digest('hex');

/** The contract's Error bodies for the refusals the peers answer. */
export const REFUSALS = {
  missing: { error: 40101, message: 'an Authorization header with a Bearer token is required' },
  unknown: { error: 40102, message: 'the bearer token is unknown, revoked or expired' },
  scope: (scope: string) => ({ error: 40301, message: `this operation needs the scope ${scope}` }),
  badPlant: { error: 40002, message: 'id, name or tag is invalid' },
  badLimit: { error: 40003, message: 'limit must be a whole number from 0' },
  badId: {
    error: 40004,
    message: 'id in the path must be a decimal int64 without sign on zero or leading zeros',
  },
  notFound: (id: string) => ({ error: 40401, message: `no plant with id ${id}` }),
  duplicate: (id: number) => ({ error: 40901, message: `a plant with id ${id} already exists` }),
} as const;

/** The caller of an Authorization header by its token's digest: the caller, or the refusal. */
export function authenticate(
  tokens: Map<string, RefCaller>,
  header: string | undefined,
  scope: string,
): { caller: RefCaller } | { status: 401 | 403; body: { error: number; message: string } } {
  if (header === undefined || !header.startsWith('Bearer ')) {
    return { status: 401, body: REFUSALS.missing };
  }
  const caller = tokens.get(digest(header.slice(7)));
  if (caller === undefined) return { status: 401, body: REFUSALS.unknown };
  return caller.scopes.includes(scope) ? { caller } : { status: 403, body: REFUSALS.scope(scope) };
}

/** The contract's request id: the caller's own when well-formed, else a fresh UUID. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
export const requestId = (given: string | string[] | undefined, fresh: () => string): string =>
  typeof given === 'string' && REQUEST_ID.test(given) ? given : fresh();

/** A path id in canonical decimal within the safe integers (the bench's ids), or undefined. */
export function pathId(text: string): number | undefined {
  if (!/^-?(0|[1-9][0-9]*)$/.test(text) || text === '-0') return undefined;
  const id = Number(text);
  return Number.isSafeInteger(id) ? id : undefined;
}
