import { printableText } from '../domain/printable-text.js';
import type { WebhookAdministration } from '../ports/webhook-administration.js';
import { SUBSCRIPTION_ID } from '../application/webhook-ids.js';
import {
  EXIT,
  iso,
  type Open,
  parseOptions,
  printList,
  type SubCommand,
  UsageError,
} from './command.js';

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

const add: WebhookCommand = async ({ webhookAdministration }, args, io) => {
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

const list: WebhookCommand = async ({ webhookAdministration }, args, io) => {
  const { values } = parseOptions({
    args,
    options: { tenant: { type: 'string' }, json: { type: 'boolean' } },
  });
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
  add: { help: ADD_HELP, run: add },
  list: { help: WEBHOOK_LIST_HELP, run: list },
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
