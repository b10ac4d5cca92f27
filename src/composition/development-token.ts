// The development token: with no PLANT_STORE_TOKENS and no JWT issuer, `npm start` is usable at
// once. Its lines go to stderr, as every human line does: stdout holds only JSON log lines.
import { randomBytes } from 'node:crypto';
import type { Scope } from '../domain/caller.js';
import { isTokenActive } from '../domain/managed-token.js';
import type { Config } from '../config/index.js';
import type { TokenStore } from '../ports/token-store.js';
import { MANAGED_TOKEN_PREFIX, tokenDigest } from '../application/token-format.js';

const TENANT = 'default';
const SCOPES: Scope[] = ['plants:read', 'plants:write', 'metrics:read'];
/** The development token's id in a durable store: one fixed id, so that workers issue it once. */
const ID = '0000000000000000';
const REVOKE = `"plant-store tokens revoke ${ID}" ends it`;

const say = (...lines: string[]): void => lines.forEach((line) => console.error(line));

const announce = (token: string, kept: boolean): void =>
  say(
    `plant-store: no PLANT_STORE_TOKENS configured; development token for tenant "${TENANT}" (${SCOPES.join(' ')})${kept ? ', kept in the storage: it works after a restart and is not shown again' : ''}:`,
    `  export TOKEN=${token}`,
  );

// A service that takes JWTs has its callers already: a token minted beside them is one nobody asked for.
const wanted = (config: Config): boolean =>
  config.staticTokens.length === 0 && config.jwt === undefined;

/** The memory storage forgets managed tokens: a fresh static token, printed at every start. */
export function withStaticDevelopmentToken(config: Config): Config {
  if (!wanted(config) || config.storage.kind !== 'memory') return config;
  const token = `pst_dev_${randomBytes(24).toString('base64url')}`;
  announce(token, false);
  return { ...config, staticTokens: [{ token, tenant: TENANT, scopes: SCOPES }] };
}

/** `VAR=value`, or `VAR="$VAR"` when the value holds a password, which no log line may show. */
const assignment = (name: string, value: string): string =>
  /^[a-z+]+:\/\/[^/@]*:[^/@]*@/i.test(value) ? `${name}="$${name}"` : `${name}=${value}`;

/**
 * Once the storage is open. lmdb keeps a managed development token, issued (and printed) when the
 * store holds no token (of workers starting at once, the one whose create wins); later starts of
 * the `first` process say it still works. redis and mongodb get none (every replica would issue
 * one): with no active managed token, the command that issues one on this very store.
 */
export async function developmentToken(
  config: Config,
  tokens: TokenStore,
  first: boolean,
): Promise<void> {
  const { storage } = config;
  if (storage.kind === 'lmdb') {
    const existing = await tokens.list();
    if (wanted(config) && existing.length === 0) {
      const token = `${MANAGED_TOKEN_PREFIX}${ID}_${randomBytes(32).toString('base64url')}`;
      const created = await tokens.create({
        ...{ id: ID, name: 'development', tenant: TENANT, scopes: SCOPES },
        ...{ digest: tokenDigest(token), createdAt: new Date() },
      });
      if (created) return announce(token, true);
    }
    const kept = existing.find((token) => token.id === ID);
    if (!first || kept === undefined || !isTokenActive(kept, new Date())) return;
    return say(
      wanted(config)
        ? `plant-store: the development token (id ${ID}) printed at the first start still works; ${REVOKE}`
        : `plant-store: the development token (id ${ID}) issued at a start without tokens configured still works beside the tokens configured now; ${REVOKE}`,
    );
  }
  if (!wanted(config) || !first || storage.kind === 'memory') return;
  if ((await tokens.list()).some((token) => isTokenActive(token, new Date()))) return;
  const where =
    storage.kind === 'redis'
      ? [
          assignment('REDIS_URL', storage.url),
          storage.prefix && assignment('PLANT_STORE_REDIS_PREFIX', storage.prefix),
        ]
      : [assignment('MONGODB_URL', storage.url)];
  say(
    `plant-store: no token can reach this service yet (no PLANT_STORE_TOKENS, no JWT issuer, no managed token in ${storage.kind}); issue one:`,
    `  PLANT_STORE_STORAGE=${storage.kind} ${where.filter(Boolean).join(' ')} plant-store tokens create --tenant ${TENANT} --scope plants:read --scope plants:write`,
  );
}
