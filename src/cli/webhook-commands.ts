import { printableText } from '../domain/printable-text.js';
import type { WebhookAdministration } from '../ports/webhook-administration.js';
import { SUBSCRIPTION_ID } from '../application/webhook-ids.js';
import { iso, printList, type Io, type Open, type SubCommand } from './command.js';
import { EXIT, UsageError } from './exit-codes.js';
import { parseOptions } from './parse-options.js';

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

/** The one subscription id that `remove`, `rotate-secret`, `enable` and `disable` take. */
function subscriptionId(args: string[]): string {
  const { positionals } = parseOptions({ args, allowPositionals: true, options: {} });
  const [id = ''] = positionals;
  if (positionals.length !== 1 || !SUBSCRIPTION_ID.test(id)) {
    throw new UsageError('one subscription id (wh_ and 16 hex digits) is required');
  }
  return id;
}

function notFound(io: Io, id: string): number {
  io.err(`plant-store: no webhook with id ${id}`);
  return EXIT.notFound;
}

const remove: WebhookCommand = async ({ webhookAdministration }, args, io) => {
  const id = subscriptionId(args);
  if (!(await webhookAdministration.remove(id))) return notFound(io, id);
  io.out(`removed webhook ${id}`);
  return EXIT.ok;
};

const rotateSecret: WebhookCommand = async ({ webhookAdministration }, args, io) => {
  const id = subscriptionId(args);
  const subscription = await webhookAdministration.rotateSecret(id);
  if (subscription === undefined) return notFound(io, id);
  io.out(subscription.secret);
  io.err(`plant-store: new secret for webhook ${id}; deliveries are signed with it from now on.`);
  return EXIT.ok;
};

const enable: WebhookCommand = async ({ webhookAdministration }, args, io) => {
  const id = subscriptionId(args);
  if ((await webhookAdministration.enable(id)) === undefined) return notFound(io, id);
  io.out(`enabled webhook ${id}; held deliveries are sent again`);
  return EXIT.ok;
};

const disable: WebhookCommand = async ({ webhookAdministration }, args, io) => {
  const id = subscriptionId(args);
  if ((await webhookAdministration.disable(id)) === undefined) return notFound(io, id);
  io.out(`disabled webhook ${id}; new events are not recorded for it`);
  return EXIT.ok;
};

const ID_HELP = (command: string, what: string) => `Usage: plant-store webhooks ${command} ID

${what} Exits 3 when no subscription has this id.`;

export const WEBHOOK_COMMANDS = {
  add: { help: ADD_HELP, run: add },
  list: { help: WEBHOOK_LIST_HELP, run: list },
  remove: {
    help: ID_HELP(
      'remove',
      'Deletes the subscription; deliveries still pending for it are dropped.',
    ),
    run: remove,
  },
  'rotate-secret': {
    help: ID_HELP('rotate-secret', 'Replaces the signing secret and prints the new one, once.'),
    run: rotateSecret,
  },
  enable: {
    help: ID_HELP('enable', 'Enables the subscription again and forgets its failures.'),
    run: enable,
  },
  disable: {
    help: ID_HELP('disable', 'Stops recording events for it; pending deliveries are held.'),
    run: disable,
  },
};
