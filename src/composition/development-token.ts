// The development token: with no PLANT_STORE_TOKENS, `npm start` is usable at once. Its lines go
// to stderr, as every human line does: stdout holds only JSON log lines, which a shipper collects.
import { randomBytes } from 'node:crypto';
import type { Scope } from '../domain/caller.js';
import type { Config } from '../config/index.js';
import type { TokenStore } from '../ports/token-store.js';
import { MANAGED_TOKEN_PREFIX, tokenDigest } from '../application/token-format.js';
import { isTokenActive } from '../domain/managed-token.js';

const TENANT = 'default';
const SCOPES: Scope[] = ['plants:read', 'plants:write', 'metrics:read'];
/** The development token's id in a durable store: one fixed id, so that workers issue it once. */
export const DEVELOPMENT_TOKEN_ID = '0000000000000000';

const announce = (token: string, kept: boolean): void => {
  console.error(
    `plant-store: no PLANT_STORE_TOKENS configured; development token for tenant "${TENANT}" (${SCOPES.join(' ')})${kept ? ', kept in the storage: it works after a restart and is not shown again' : ''}:`,
  );
  console.error(`  export TOKEN=${token}`);
};

/**
 * Whether this start has no token of its own configured (no static token, no JWT issuer): the case
 * for a development token. A service that takes JWTs has its callers already, and a token minted
 * beside them, printed to its logs and kept in the store, would be one nobody asked for.
 */
export const wantsDevelopmentToken = (config: Config): boolean =>
  config.staticTokens.length === 0 && config.jwt === undefined;

/** The memory storage forgets managed tokens: a fresh static token, printed at every start. */
export function withStaticDevelopmentToken(config: Config): Config {
  const token = `pst_dev_${randomBytes(24).toString('base64url')}`;
  announce(token, false);
  return { ...config, staticTokens: [{ token, tenant: TENANT, scopes: SCOPES }] };
}

/**
 * A durable storage keeps a managed development token: issued at the first start (the store holds
 * no token yet) and printed then only; later starts say it is there (revoke it with `plant-store
 * tokens revoke`). Only its digest is stored, as for every managed token. Of several workers
 * starting at once, the one whose create wins prints it; `remind: false` (every worker but the
 * first) says nothing of a token issued before.
 */
export async function keepDevelopmentToken(
  tokens: TokenStore,
  { remind = true, now = new Date() }: { remind?: boolean; now?: Date } = {},
): Promise<void> {
  const existing = await tokens.list();
  if (existing.length === 0) {
    const secret = randomBytes(32).toString('base64url');
    const token = `${MANAGED_TOKEN_PREFIX}${DEVELOPMENT_TOKEN_ID}_${secret}`;
    const created = await tokens.create({
      id: DEVELOPMENT_TOKEN_ID,
      name: 'development',
      tenant: TENANT,
      scopes: SCOPES,
      digest: tokenDigest(token),
      createdAt: now,
    });
    if (created) return announce(token, true);
  }
  const kept = existing.some(
    (token) => token.id === DEVELOPMENT_TOKEN_ID && token.revokedAt === undefined,
  );
  if (remind && kept) {
    console.error(
      `plant-store: the development token (id ${DEVELOPMENT_TOKEN_ID}) printed at the first start still works; "plant-store tokens revoke ${DEVELOPMENT_TOKEN_ID}" ends it`,
    );
  }
}

/**
 * A start with tokens configured on a store that holds the development token of an earlier start
 * without them: the token still works (it is a managed token), so say so, once, rather than leave
 * a credential for tenant "default" working unseen beside the configured ones.
 */
export async function warnOfDevelopmentToken(tokens: TokenStore): Promise<void> {
  const kept = await tokens.find(DEVELOPMENT_TOKEN_ID);
  if (kept === undefined || kept.revokedAt !== undefined) return;
  if (kept.expiresAt !== undefined && kept.expiresAt.getTime() <= Date.now()) return;
  console.error(
    `plant-store: the development token (id ${DEVELOPMENT_TOKEN_ID}) issued at a start without tokens configured still works beside the tokens configured now; "plant-store tokens revoke ${DEVELOPMENT_TOKEN_ID}" ends it`,
  );
}

/** `VAR=value`, or `VAR="$VAR"` when the value holds a password, which no log line may show. */
const assignment = (name: string, value: string): string =>
  /^[a-z+]+:\/\/[^/@]*:[^/@]*@/i.test(value) ? `${name}="$${name}"` : `${name}=${value}`;

/**
 * A shared store (Redis, MongoDB) gets no development token: every replica would issue or print
 * one. With nothing configured and no managed token in the store, no caller can reach the
 * service: say so, with the command that issues a token on this very store.
 */
export async function sayHowToIssueToken(
  tokens: TokenStore,
  storage: Config['storage'],
): Promise<void> {
  const now = new Date();
  if ((await tokens.list()).some((token) => isTokenActive(token, now))) return;
  const where =
    storage.kind === 'redis'
      ? [
          assignment('REDIS_URL', storage.url),
          ...(storage.prefix === undefined
            ? []
            : [assignment('PLANT_STORE_REDIS_PREFIX', storage.prefix)]),
        ]
      : storage.kind === 'mongodb'
        ? [assignment('MONGODB_URL', storage.url)]
        : [];
  console.error(
    `plant-store: no token can reach this service yet (no PLANT_STORE_TOKENS, no JWT issuer, no managed token in ${storage.kind}); issue one:`,
  );
  console.error(
    `  PLANT_STORE_STORAGE=${storage.kind} ${where.join(' ')} plant-store tokens create --tenant ${TENANT} --scope plants:read --scope plants:write`,
  );
}
