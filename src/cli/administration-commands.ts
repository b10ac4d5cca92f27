// `tokens` and `webhooks`: the administrations' commands, each run over the shared storage.
import { isTokenActive } from '../domain/managed-token.js';
import { printableText } from '../domain/printable-text.js';
import { checkTenant } from '../domain/tenant.js';
import type { TokenAdministration } from '../ports/token-administration.js';
import type { WebhookAdministration } from '../ports/webhook-administration.js';
import { SUBSCRIPTION_ID } from '../application/webhook-ids.js';
import { DEFAULT_TOKEN_CACHE_SECONDS } from '../config/index.js';
import { UNIT_MS } from '../config/parse.js';
import {
  EXIT,
  iso,
  type Open,
  parseOptions,
  printList,
  type SubCommand,
  UsageError,
} from './command.js';

export const TOKENS_HELP = `Usage: plant-store tokens <command> [options]

Manage API tokens in the configured storage (PLANT_STORE_STORAGE), which servers on it read.

Commands:
  create    issue a token and print it once
  list      show tokens (never the token or its hash)
  revoke    revoke a token by id

Run "plant-store tokens <command> --help" for a command's options.`;

const CREATE_HELP = `Usage: plant-store tokens create --tenant T --scope S [--scope S] [options]

Issues a token and prints it on stdout, once: it is never shown again (only its SHA-256 is stored).

Options:
  --tenant T         the tenant whose plants the token reaches (required)
  --scope S          plants:read, plants:write or metrics:read (GET /metrics);
                     repeat for several (at least one)
  --expires-in D     lifetime: 30d, 12h, 45m, 90s, or never (default 90d)
  --name TEXT        a label for "tokens list" (at most 100 characters)
  --json             print {"id", "token", ...} as JSON instead of the bare token
  -h, --help         show this help`;

const LIST_HELP = `Usage: plant-store tokens list [--tenant T] [--json]

Shows id, name, tenant, scopes, created, expires, last used and status of each token, oldest
first. Never shows a token or its hash. Last use is recorded at most once a minute per token.

Options:
  --tenant T         only this tenant's tokens
  --json             one JSON array instead of a table
  -h, --help         show this help`;

const REVOKE_HELP = `Usage: plant-store tokens revoke ID

Revokes the token with this id (the 16 hex digits after "pst_", as "tokens list" shows them; a
whole token is accepted too). Servers refuse it within PLANT_STORE_TOKEN_CACHE_SECONDS (${DEFAULT_TOKEN_CACHE_SECONDS} s).
Exits 3 when no token has this id.

Options:
  -h, --help         show this help`;

/** Reads `30d`, `12h`, `45m` or `90s` (up to ten years) as milliseconds, `never` as undefined. */
function parseLifetime(text: string): number | undefined {
  if (text === 'never') return undefined;
  const match = /^([1-9][0-9]{0,6})([smhd])$/.exec(text);
  const ms = match ? Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] : NaN;
  if (!(ms <= 3650 * UNIT_MS.d)) {
    throw new UsageError(
      `--expires-in must be a number of s, m, h or d up to 3650d, or never (got "${text}")`,
    );
  }
  return ms;
}

export type OpenTokens = Open<{ tokenAdministration: TokenAdministration }>;
type TokenCommand = SubCommand<{ tokenAdministration: TokenAdministration }>['run'];

const create: TokenCommand = async ({ tokenAdministration }, args, io) => {
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
  const lifetime = parseLifetime(values['expires-in'] ?? '90d');
  const { token, summary } = await tokenAdministration.issue({
    tenant: values.tenant ?? '',
    scopes: values.scope ?? [],
    ...(values.name !== undefined && { name: values.name }),
    ...(lifetime !== undefined && { expiresAt: new Date(Date.now() + lifetime) }),
  });
  io.out(values.json ? JSON.stringify({ ...summary, token }) : token);
  io.err(
    `plant-store: created token ${summary.id} for tenant "${summary.tenant}" (${summary.scopes.join(' ')}), ` +
      `expires ${summary.expiresAt ? iso(summary.expiresAt) : 'never'}. It is shown once: store it now.`,
  );
  return EXIT.ok;
};

/** The options of `tokens list` and `webhooks list`. */
const listOptions = (args: string[]) =>
  parseOptions({ args, options: { tenant: { type: 'string' }, json: { type: 'boolean' } } }).values;

const list: TokenCommand = async ({ tokenAdministration }, args, io) => {
  const values = listOptions(args);
  if (values.tenant === '') throw new UsageError('--tenant must not be empty');
  const badTenant = values.tenant === undefined ? undefined : checkTenant(values.tenant);
  if (badTenant !== undefined) throw new UsageError(`--tenant ${badTenant}`);
  const now = new Date();
  const listed = (await tokenAdministration.list(values.tenant)).map((token) => ({
    ...token,
    status: token.revokedAt ? 'revoked' : isTokenActive(token, now) ? 'active' : 'expired',
  }));
  printList(
    io,
    values.json,
    listed,
    ['ID', 'NAME', 'TENANT', 'SCOPES', 'CREATED', 'EXPIRES', 'LAST USED', 'STATUS'],
    (t) => [
      t.id,
      t.name || '-',
      t.tenant,
      t.scopes.join(','),
      iso(t.createdAt),
      iso(t.expiresAt),
      iso(t.lastUsedAt),
      t.status,
    ],
  );
  return EXIT.ok;
};

const revoke: TokenCommand = async ({ tokenAdministration }, args, io, config) => {
  const { positionals } = parseOptions({ args, allowPositionals: true, options: {} });
  if (positionals.length !== 1) throw new UsageError('tokens revoke needs exactly one token id');
  const { id, found } = await tokenAdministration.revoke(positionals[0]!);
  if (!found) {
    io.err(`plant-store: no token with id ${id}`);
    return EXIT.notFound;
  }
  io.out(`revoked token ${id}; servers refuse it within ${config.tokenCacheSeconds} s`);
  return EXIT.ok;
};

export const TOKEN_COMMANDS = {
  create: { help: CREATE_HELP, run: create },
  list: { help: LIST_HELP, run: list },
  revoke: { help: REVOKE_HELP, run: revoke },
};

export const WEBHOOKS_HELP = `Usage: plant-store webhooks <command> [options]

Manage webhook subscriptions in the configured storage (PLANT_STORE_STORAGE), which servers on
it read. See docs/webhooks.md.

Commands:
  add            subscribe a URL to a tenant's events; prints the signing secret once
  list           show subscriptions with their failures and last error (never secrets)
  remove ID      delete a subscription; its pending deliveries are dropped
  rotate-secret ID   replace the signing secret; prints the new one once
  enable ID      enable again (after being disabled for failing), failures forgotten
  disable ID     stop recording and sending events for it

Run "plant-store webhooks <command> --help" for a command's options.`;

const ADD_HELP = `Usage: plant-store webhooks add --tenant T --url URL [--event plant.created] [--json]

Subscribes URL to the tenant's events (default plant.created) and prints the signing secret
(whsec_...) on stdout, once. The URL must be https unless PLANT_STORE_WEBHOOK_ALLOW_PRIVATE=true.

Options:
  --tenant T     the tenant whose events are sent (required)
  --url URL      the receiver (required)
  --event E      an event to send; repeatable (default plant.created)
  --json         print the subscription with its secret as JSON
  -h, --help     show this help`;

const WEBHOOK_LIST_HELP = `Usage: plant-store webhooks list [--tenant T] [--json]

Shows id, tenant, URL, events, status, consecutive failures, last success and last error of each
subscription, oldest first. Never shows a secret.`;

export type OpenWebhooks = Open<{ webhookAdministration: WebhookAdministration }>;
type WebhookCommand = SubCommand<{ webhookAdministration: WebhookAdministration }>['run'];

const addWebhook: WebhookCommand = async ({ webhookAdministration }, args, io) => {
  const { values } = parseOptions({
    args,
    options: {
      tenant: { type: 'string' },
      url: { type: 'string' },
      event: { type: 'string', multiple: true },
      json: { type: 'boolean' },
    },
  });
  if (values.url === undefined) throw new UsageError('a receiver URL is required (--url URL)');
  const subscription = await webhookAdministration.add({
    tenant: values.tenant ?? '',
    url: values.url,
    events: values.event ?? [],
  });
  io.out(values.json ? JSON.stringify(subscription) : subscription.secret);
  io.err(
    `plant-store: added webhook ${subscription.id} for tenant "${subscription.tenant}" ` +
      `(${subscription.events.join(' ')}) to ${subscription.url}. The secret is shown once: store it now.`,
  );
  return EXIT.ok;
};

const listWebhooks: WebhookCommand = async ({ webhookAdministration }, args, io) => {
  const values = listOptions(args);
  const subscriptions = (await webhookAdministration.list(values.tenant)).map(
    ({ secret: _secret, ...rest }) => rest,
  );
  printList(
    io,
    values.json,
    subscriptions,
    ['ID', 'TENANT', 'URL', 'EVENTS', 'STATUS', 'FAILURES', 'LAST SUCCESS', 'LAST ERROR'],
    (s) => [
      s.id,
      s.tenant,
      s.url,
      s.events.join(','),
      s.enabled ? 'enabled' : `disabled ${iso(s.disabledAt)}`,
      String(s.health.failures),
      iso(s.health.lastSuccessAt),
      s.health.lastError === undefined
        ? '-'
        : // Escaped again here: a record written before excerpts were escaped may hold controls.
          `${iso(s.health.lastAttemptAt)} ${printableText(s.health.lastError)}`,
    ],
  );
  return EXIT.ok;
};

/**
 * `remove`, `rotate-secret`, `enable` and `disable`: one subscription id, what the command does
 * to it, resolving the line to print (undefined: no subscription has the id, exit 3), and `note`,
 * a line for stderr after it.
 */
function byId(
  command: string,
  what: string,
  act: (administration: WebhookAdministration, id: string) => Promise<string | undefined>,
  note?: (id: string) => string,
): { help: string; run: WebhookCommand } {
  const run: WebhookCommand = async ({ webhookAdministration }, args, io) => {
    const { positionals } = parseOptions({ args, allowPositionals: true, options: {} });
    const [id = ''] = positionals;
    if (positionals.length !== 1 || !SUBSCRIPTION_ID.test(id)) {
      throw new UsageError('one subscription id (wh_ and 16 hex digits) is required');
    }
    const line = await act(webhookAdministration, id);
    if (line === undefined) {
      io.err(`plant-store: no webhook with id ${id}`);
      return EXIT.notFound;
    }
    io.out(line);
    if (note) io.err(note(id));
    return EXIT.ok;
  };
  return {
    help: `Usage: plant-store webhooks ${command} ID\n\n${what} Exits 3 when no subscription has this id.`,
    run,
  };
}

export const WEBHOOK_COMMANDS = {
  add: { help: ADD_HELP, run: addWebhook },
  list: { help: WEBHOOK_LIST_HELP, run: listWebhooks },
  remove: byId(
    'remove',
    'Deletes the subscription; deliveries still pending for it are dropped.',
    async (administration, id) =>
      (await administration.remove(id)) ? `removed webhook ${id}` : undefined,
  ),
  'rotate-secret': byId(
    'rotate-secret',
    'Replaces the signing secret and prints the new one, once.',
    async (administration, id) => (await administration.rotateSecret(id))?.secret,
    (id) => `plant-store: new secret for webhook ${id}; deliveries are signed with it from now on.`,
  ),
  enable: byId(
    'enable',
    'Enables the subscription again and forgets its failures.',
    async (administration, id) =>
      (await administration.enable(id)) && `enabled webhook ${id}; held deliveries are sent again`,
  ),
  disable: byId(
    'disable',
    'Stops recording events for it; pending deliveries are held.',
    async (administration, id) =>
      (await administration.disable(id)) &&
      `disabled webhook ${id}; new events are not recorded for it`,
  ),
};
