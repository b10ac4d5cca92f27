import { isScope } from '../domain/caller.js';
import { checkTenant } from '../domain/tenant.js';
import type { StaticToken } from '../adapters/auth/static-token-verifier.js';
import { ConfigError } from '../adapters/config-error.js';

export type { StaticToken };

/** How long a server trusts a managed token it looked up, unless PLANT_STORE_TOKEN_CACHE_SECONDS says otherwise. */
export const DEFAULT_TOKEN_CACHE_SECONDS = 5;

// RFC 6750 b64token.
const TOKEN_CHARACTERS = /^[A-Za-z0-9\-._~+/]+=*$/;
const MIN_TOKEN_LENGTH = 16;
const SHAPE = 'PLANT_STORE_TOKENS must be a JSON array of {"token", "tenant", "scopes"}';

/** Reads PLANT_STORE_TOKENS: a JSON array of distinct tokens, each with its tenant and scopes. */
export function parseStaticTokens(text: string | undefined): StaticToken[] {
  if (text === undefined || text.trim() === '') return [];
  let entries: unknown;
  try {
    entries = JSON.parse(text);
  } catch {
    throw new ConfigError(SHAPE);
  }
  if (!Array.isArray(entries)) throw new ConfigError(SHAPE);
  const seen = new Set<string>();
  return entries.map((entry: unknown, index): StaticToken => {
    const where = `PLANT_STORE_TOKENS[${index}]`;
    const { token, tenant, scopes } = (entry ?? {}) as Record<string, unknown>;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw new ConfigError(`${where} must be an object with token, tenant and scopes`);
    }
    if (
      typeof token !== 'string' ||
      token.length < MIN_TOKEN_LENGTH ||
      !TOKEN_CHARACTERS.test(token)
    ) {
      throw new ConfigError(
        `${where}.token must be at least ${MIN_TOKEN_LENGTH} characters of A-Z a-z 0-9 - . _ ~ + / (then optional =)`,
      );
    }
    if (seen.has(token)) throw new ConfigError(`${where}.token repeats an earlier entry's token`);
    seen.add(token);
    const badTenant = checkTenant(tenant);
    if (badTenant !== undefined) throw new ConfigError(`${where}.tenant ${badTenant}`);
    if (!Array.isArray(scopes) || !scopes.every(isScope)) {
      throw new ConfigError(
        `${where}.scopes must be an array of "plants:read", "plants:write" and "metrics:read"`,
      );
    }
    return { token, tenant: tenant as string, scopes: [...new Set(scopes)] };
  });
}
