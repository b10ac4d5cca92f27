// The CLI's `tokens`, `webhooks`, `export`, `import` and `backup` commands: the configured storage
// through the container `serve` builds (the same stores and decorators), less HTTP, auth and
// delivery, with no metrics and a quiet logger, resolved once the storage is open.
import { Container } from 'inversify';
import type { Config } from '../config/index.js';
import type { Logger } from '../ports/logger.js';
import type { Storage } from '../ports/storage.js';
import type { TokenAdministration } from '../ports/token-administration.js';
import type { WebhookAdministration } from '../ports/webhook-administration.js';
import { checkReceiverUrl } from '../adapters/webhooks/address-policy.js';
import { TokenAdministrator } from '../application/token-administrator.js';
import { WebhookAdministrator } from '../application/webhook-administrator.js';
import { TYPES } from './identifiers.js';
import { endProcess, OWN_PARTS, type OwnParts, serviceModule } from './modules.js';

/** How long a command waits for a store that is not up: an operator wants a quick answer. */
const COMMAND_WAIT_SECONDS = 2;

/** The command's stdout carries its answer (a token, JSON): the library's lines stay out of it. */
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** What the operator must hear of (a stock LMDB addon) goes to stderr, one line. */
const notice = (line: string): void => void process.stderr.write(`plant-store: ${line}\n`);

/**
 * `use(container, parts)` once the storage is open, with `close` added; the storage is closed
 * when it cannot be opened or `use` throws. `configure` may rebind identifiers first, as for
 * `buildContainer`.
 */
async function openWith<A extends object>(
  config: Config,
  configure: ((container: Container) => void) | undefined,
  use: (container: Container, parts: OwnParts, opened: Storage) => A,
): Promise<A & { close(): Promise<void> }> {
  const commandConfig = { ...config, metrics: false, startupTimeoutSeconds: COMMAND_WAIT_SECONDS };
  const container = new Container({ defaultScope: 'Singleton' });
  container.load(serviceModule(commandConfig, { notice, onLockLost: endProcess }));
  container.rebind(TYPES.Logger).toConstantValue(quiet);
  configure?.(container);
  const parts = container.get(OWN_PARTS);
  try {
    return {
      ...use(container, parts, await parts.storage.opened),
      close: () => parts.storage.close(),
    };
  } catch (error) {
    await parts.storage.close();
    throw error;
  }
}

/** `plant-store tokens`: the token administration over the configured storage. */
export const openTokenAdministration = (
  config: Config,
  configure?: (container: Container) => void,
): Promise<{ tokenAdministration: TokenAdministration; close(): Promise<void> }> =>
  openWith(config, configure, (container) => ({
    tokenAdministration: new TokenAdministrator(
      container.get(TYPES.TokenStore),
      container.get(TYPES.Clock),
    ),
  }));

/** `plant-store webhooks`: webhook administration over the configured storage's subscriptions. */
export const openWebhookAdministration = (
  config: Config,
  configure?: (container: Container) => void,
): Promise<{ webhookAdministration: WebhookAdministration; close(): Promise<void> }> =>
  openWith(config, configure, (_container, { storage }, opened) => {
    if (opened.webhooks === undefined) {
      throw new Error(`webhooks are not available with the ${config.storage.kind} storage`);
    }
    const { allowPrivate } = config.webhooks;
    return {
      webhookAdministration: new WebhookAdministrator(storage.webhooks, (url) =>
        checkReceiverUrl(url, allowPrivate),
      ),
    };
  });

/** What `export`, `import` and `backup` use of the storage. */
export type PlantStorage = Pick<Storage, 'plants' | 'snapshot' | 'backup' | 'check' | 'close'>;

/**
 * `plant-store export`, `import` and `backup`: the configured storage's plant store (observed, as
 * `serve` binds it), and its snapshots and backup where it has them; no HTTP and no webhook
 * delivery (an import records no event).
 */
export const openPlantStore = (
  config: Config,
  configure?: (container: Container) => void,
): Promise<PlantStorage> =>
  openWith(config, configure, (container, _parts, opened) => ({
    plants: container.get(TYPES.PlantStore),
    ...(opened.snapshot && { snapshot: opened.snapshot.bind(opened) }),
    ...(opened.backup && { backup: opened.backup.bind(opened) }),
    ...(opened.check && { check: opened.check.bind(opened) }),
  }));
