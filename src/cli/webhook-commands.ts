import { parseArgs } from 'node:util';
import { printableText } from '../domain/printable-text.js';
import type { WebhookSubscription } from '../domain/webhook.js';
import type { Config } from '../config/index.js';
import { sharedStorageConfig } from './shared-storage.js';
import { WebhookRequestError } from '../domain/webhook.js';
import type { WebhookAdministration } from '../ports/webhook-administration.js';
import { SUBSCRIPTION_ID } from '../application/webhook-ids.js';
import { EXIT, UsageError } from './exit-codes.js';
import type { Io } from './token-commands.js';

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

export const ADD_HELP = `Usage: plant-store webhooks add --tenant T --url URL [--event plant.created] [--json]

Subscribes URL to the tenant's events (default plant.created) and prints the signing secret
(whsec_...) on stdout, once. The URL must be https unless PLANT_STORE_WEBHOOK_ALLOW_PRIVATE=true.

Options:
  --tenant T     the tenant whose events are sent (required)
  --url URL      the receiver (required)
  --event E      an event to send; repeatable (default plant.created)
  --json         print the subscription with its secret as JSON
  -h, --help     show this help`;

export const WEBHOOK_LIST_HELP = `Usage: plant-store webhooks list [--tenant T] [--json]

Shows id, tenant, URL, events, status, consecutive failures, last success and last error of each
subscription, oldest first. Never shows a secret.`;

const ID_HELP = (command: string, what: string) => `Usage: plant-store webhooks ${command} ID

${what} Exits 3 when no subscription has this id.`;

const iso = (date: Date | undefined): string =>
  date === undefined ? '-' : date.toISOString().replace(/\.\d{3}Z$/, 'Z');

const withoutSecret = ({ secret: _secret, ...rest }: WebhookSubscription) => rest;

type Command = (admin: WebhookAdministration, args: string[], io: Io) => Promise<number>;

async function add(admin: WebhookAdministration, args: string[], io: Io): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      tenant: { type: 'string' },
      url: { type: 'string' },
      event: { type: 'string', multiple: true },
      json: { type: 'boolean' },
    },
  });
  if (values.url === undefined) throw new UsageError('a receiver URL is required (--url URL)');
  let subscription: WebhookSubscription;
  try {
    subscription = await admin.add({
      tenant: values.tenant ?? '',
      url: values.url,
      events: values.event ?? [],
    });
  } catch (error) {
    if (error instanceof WebhookRequestError) throw new UsageError(error.message);
    throw error;
  }
  io.out(values.json ? JSON.stringify(subscription) : subscription.secret);
  io.err(
    `plant-store: added webhook ${subscription.id} for tenant "${subscription.tenant}" ` +
      `(${subscription.events.join(' ')}) to ${subscription.url}. The secret is shown once: store it now.`,
  );
  return EXIT.ok;
}

async function list(admin: WebhookAdministration, args: string[], io: Io): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { tenant: { type: 'string' }, json: { type: 'boolean' } },
  });
  const subscriptions = (await admin.list(values.tenant)).map(withoutSecret);
  if (values.json) {
    io.out(JSON.stringify(subscriptions));
    return EXIT.ok;
  }
  const rows = [
    ['ID', 'TENANT', 'URL', 'EVENTS', 'STATUS', 'FAILURES', 'LAST SUCCESS', 'LAST ERROR'],
    ...subscriptions.map((s) => [
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
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows) {
    io.out(
      row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    );
  }
  return EXIT.ok;
}

/** The commands that take one subscription id. */
function byId(
  act: (
    admin: WebhookAdministration,
    id: string,
  ) => Promise<WebhookSubscription | boolean | undefined>,
  done: (subscription: WebhookSubscription | boolean, io: Io, id: string) => void,
): Command {
  return async (admin, args, io) => {
    const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
    const id = positionals[0] ?? '';
    if (positionals.length !== 1 || !SUBSCRIPTION_ID.test(id)) {
      throw new UsageError('one subscription id (wh_ and 16 hex digits) is required');
    }
    const result = await act(admin, id);
    if (result === undefined || result === false) {
      io.err(`plant-store: no webhook with id ${id}`);
      return EXIT.notFound;
    }
    done(result, io, id);
    return EXIT.ok;
  };
}

export const WEBHOOK_COMMANDS: Record<string, { run: Command; help: string }> = {
  add: { run: add, help: ADD_HELP },
  list: { run: list, help: WEBHOOK_LIST_HELP },
  remove: {
    run: byId(
      (admin, id) => admin.remove(id),
      (_, io, id) => io.out(`removed webhook ${id}`),
    ),
    help: ID_HELP(
      'remove',
      'Deletes the subscription; deliveries still pending for it are dropped.',
    ),
  },
  'rotate-secret': {
    run: byId(
      (admin, id) => admin.rotateSecret(id),
      (subscription, io, id) => {
        io.out((subscription as WebhookSubscription).secret);
        io.err(
          `plant-store: new secret for webhook ${id}; deliveries are signed with it from now on.`,
        );
      },
    ),
    help: ID_HELP('rotate-secret', 'Replaces the signing secret and prints the new one, once.'),
  },
  enable: {
    run: byId(
      (admin, id) => admin.enable(id),
      (_, io, id) => io.out(`enabled webhook ${id}; held deliveries are sent again`),
    ),
    help: ID_HELP('enable', 'Enables the subscription again and forgets its failures.'),
  },
  disable: {
    run: byId(
      (admin, id) => admin.disable(id),
      (_, io, id) => io.out(`disabled webhook ${id}; new events are not recorded for it`),
    ),
    help: ID_HELP('disable', 'Stops recording events for it; pending deliveries are held.'),
  },
};

/** `plant-store webhooks ...`: resolves the exit code; usage errors and failures propagate. */
export async function runWebhookCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  io: Io,
  open: (
    config: Config,
  ) => Promise<{ webhookAdministration: WebhookAdministration; close(): Promise<void> }>,
): Promise<number> {
  const [sub, ...args] = argv;
  if (sub === undefined) {
    throw new UsageError('webhooks needs a command: add, list, remove, rotate-secret or enable');
  }
  if (sub === '--help' || sub === '-h') {
    io.out(WEBHOOKS_HELP);
    return EXIT.ok;
  }
  const command = Object.hasOwn(WEBHOOK_COMMANDS, sub) ? WEBHOOK_COMMANDS[sub] : undefined;
  if (command === undefined) throw new UsageError(`unknown webhooks command "${sub}"`);
  // Help needs no configuration and opens no storage.
  if (args.includes('--help') || args.includes('-h')) {
    io.out(command.help);
    return EXIT.ok;
  }
  const administration = await open(sharedStorageConfig(env, 'webhook subscriptions'));
  try {
    return await command.run(administration.webhookAdministration, [...args], io);
  } finally {
    await administration.close();
  }
}
