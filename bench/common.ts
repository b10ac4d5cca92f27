/** What every benchmark process agrees on: the token, the plant bodies, the ready line. */

export const BENCH_TOKEN = 'bench-token-0123456789abcdef';
export const BENCH_TENANT = 'bench';

/** PLANT_STORE_TOKENS for a run: one token with both scopes, in its own tenant. */
export const benchTokens = (tenant = BENCH_TENANT): string =>
  JSON.stringify([{ token: BENCH_TOKEN, tenant, scopes: ['plants:read', 'plants:write'] }]);

/** A typical plant: a 12-byte name and an 8-byte tag, both unique to the id. */
export function plantName(id: number): string {
  return `plant-${String(id % 1_000_000).padStart(6, '0')}`;
}
export function plantTag(id: number): string {
  return `tag-${String(id % 10_000).padStart(4, '0')}`;
}
/**
 * The tags scenario's filter: every TAG_EVERY-th id carries FILTER_TAG instead of its own tag, so
 * that 1% of a tenant's plants, spread evenly over its ids, match `?tags=aroid`.
 */
export const FILTER_TAG = 'aroid';
export const TAG_EVERY = 100;
export const plantBody = (id: number): string =>
  `{"id":${id},"name":"${plantName(id)}","tag":"${plantTag(id)}"}`;

/** Every server prints this line (the service's own wording) once it accepts connections. */
export const LISTENING = /listening on http:\/\/([0-9.]+):(\d+)/;
export const listeningLine = (host: string, port: number): string =>
  `listening on http://${host}:${port}`;
