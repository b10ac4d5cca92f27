import { isTokenActive, TokenRequestError, type TokenSummary } from '../domain/managed-token.js';
import { checkTenant } from '../domain/tenant.js';
import type { TokenAdministration } from '../ports/token-administration.js';
import { DEFAULT_TOKEN_CACHE_SECONDS, type Config } from '../config/index.js';
import { parseLifetime } from './duration.js';
import { EXIT, UsageError } from './exit-codes.js';
import { parseOptions } from './parse-options.js';

export interface Io {
  out(line: string): void;
  err(line: string): void;
  /** Rewrites one status line (empty: clears it); present only when stderr is a terminal. */
  progress?(line: string): void;
}

export const TOKENS_HELP = `Usage: plant-store tokens <command> [options]

Manage API tokens in the configured storage (PLANT_STORE_STORAGE), which servers on it read.

Commands:
  create    issue a token and print it once
  list      show tokens (never the token or its hash)
  revoke    revoke a token by id

Run "plant-store tokens <command> --help" for a command's options.`;

export const CREATE_HELP = `Usage: plant-store tokens create --tenant T --scope S [--scope S] [options]

Issues a token and prints it on stdout, once: it is never shown again (only its SHA-256 is stored).

Options:
  --tenant T         the tenant whose plants the token reaches (required)
  --scope S          plants:read, plants:write or metrics:read (GET /metrics);
                     repeat for several (at least one)
  --expires-in D     lifetime: 30d, 12h, 45m, 90s, or never (default 90d)
  --name TEXT        a label for "tokens list" (at most 100 characters)
  --json             print {"id", "token", ...} as JSON instead of the bare token
  -h, --help         show this help`;

export const LIST_HELP = `Usage: plant-store tokens list [--tenant T] [--json]

Shows id, name, tenant, scopes, created, expires, last used and status of each token, oldest
first. Never shows a token or its hash. Last use is recorded at most once a minute per token.

Options:
  --tenant T         only this tenant's tokens
  --json             one JSON array instead of a table
  -h, --help         show this help`;

export const REVOKE_HELP = `Usage: plant-store tokens revoke ID

Revokes the token with this id (the 16 hex digits after "pst_", as "tokens list" shows them; a
whole token is accepted too). Servers refuse it within PLANT_STORE_TOKEN_CACHE_SECONDS (${DEFAULT_TOKEN_CACHE_SECONDS} s).
Exits 3 when no token has this id.

Options:
  -h, --help         show this help`;

const iso = (date: Date | undefined): string =>
  date === undefined ? '-' : date.toISOString().replace(/\.\d{3}Z$/, 'Z');

function status(token: TokenSummary, now: Date): string {
  if (token.revokedAt !== undefined) return 'revoked';
  return isTokenActive(token, now) ? 'active' : 'expired';
}

/** A token command: parses its arguments, acts through the administration, resolves its exit code. */
type TokenCommand = (
  tokenAdministration: TokenAdministration,
  args: string[],
  io: Io,
  config: Pick<Config, 'tokenCacheSeconds'>,
) => Promise<number>;

/** Refusals of the administration are refusals of the command line (exit 2). */
async function asUsage<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof TokenRequestError) throw new UsageError(error.message);
    throw error;
  }
}

export const createToken: TokenCommand = async (administration, args, io) => {
  const { values } = parseOptions({
    args,
    options: {
      tenant: { type: 'string' },
      scope: { type: 'string', multiple: true },
      'expires-in': { type: 'string' },
      name: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  let lifetime: number | undefined;
  try {
    lifetime = parseLifetime(values['expires-in'] ?? '90d');
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const request = {
    tenant: values.tenant ?? '',
    scopes: values.scope ?? [],
    ...(values.name !== undefined && { name: values.name }),
    ...(lifetime !== undefined && { expiresAt: new Date(Date.now() + lifetime) }),
  };
  const { token, summary } = await asUsage(administration.issue(request));
  io.out(values.json ? JSON.stringify({ ...summary, token }) : token);
  io.err(
    `plant-store: created token ${summary.id} for tenant "${summary.tenant}" (${summary.scopes.join(' ')}), ` +
      `expires ${summary.expiresAt ? iso(summary.expiresAt) : 'never'}. It is shown once: store it now.`,
  );
  return EXIT.ok;
};

export const listTokens: TokenCommand = async (administration, args, io) => {
  const { values } = parseOptions({
    args,
    options: {
      tenant: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  if (values.tenant === '') throw new UsageError('--tenant must not be empty');
  const badTenant = values.tenant === undefined ? undefined : checkTenant(values.tenant);
  if (badTenant !== undefined) throw new UsageError(`--tenant ${badTenant}`);
  const listed = await administration.list(values.tenant);
  const now = new Date();
  if (values.json) {
    io.out(JSON.stringify(listed.map((token) => ({ ...token, status: status(token, now) }))));
    return EXIT.ok;
  }
  const rows = [
    ['ID', 'NAME', 'TENANT', 'SCOPES', 'CREATED', 'EXPIRES', 'LAST USED', 'STATUS'],
    ...listed.map((t) => [
      t.id,
      t.name || '-',
      t.tenant,
      t.scopes.join(','),
      iso(t.createdAt),
      iso(t.expiresAt),
      iso(t.lastUsedAt),
      status(t, now),
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows) {
    io.out(
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    );
  }
  return EXIT.ok;
};

export const revokeToken: TokenCommand = async (administration, args, io, config) => {
  const { positionals } = parseOptions({ args, allowPositionals: true, options: {} });
  if (positionals.length !== 1) throw new UsageError('tokens revoke needs exactly one token id');
  const { id, found } = await asUsage(administration.revoke(positionals[0]!));
  if (!found) {
    io.err(`plant-store: no token with id ${id}`);
    return EXIT.notFound;
  }
  io.out(`revoked token ${id}; servers refuse it within ${config.tokenCacheSeconds} s`);
  return EXIT.ok;
};
