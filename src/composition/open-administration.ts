// The CLI's `tokens`, `webhooks`, `export`, `import`, `backup` and `check` commands: the
// configured storage through the container `serve` builds (the same stores and decorators), less
// HTTP, auth and delivery, with no metrics and a quiet logger, resolved once the storage is open.
import { Container } from 'inversify';
import type { Config } from '../config/index.js';
import type { Logger } from '../ports/logger.js';
import type { Storage } from '../ports/storage.js';
import { TYPES } from './identifiers.js';
import { administrations, endProcess, OWN_PARTS, serviceModule } from './modules.js';

/** How long a command waits for a store that is not up: an operator wants a quick answer. */
const COMMAND_WAIT_SECONDS = 2;

/** The command's stdout carries its answer (a token, JSON): the library's lines stay out of it. */
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** What the operator must hear of (a stock LMDB addon) goes to stderr, one line. */
const notice = (line: string): void => void process.stderr.write(`plant-store: ${line}\n`);

type Configure = ((container: Container) => void) | undefined;

/** `use` once the storage is open, with `close` added (the storage closed if either fails). */
async function openWith<A extends object>(
  config: Config,
  configure: Configure,
  use: (container: Container, opened: Storage) => A,
): Promise<A & { close(): Promise<void> }> {
  const commandConfig = { ...config, metrics: false, startupTimeoutSeconds: COMMAND_WAIT_SECONDS };
  const container = new Container({ defaultScope: 'Singleton' });
  container.load(serviceModule(commandConfig, { notice, onLockLost: endProcess }));
  container.rebind(TYPES.Logger).toConstantValue(quiet);
  configure?.(container);
  const { storage } = container.get(OWN_PARTS);
  try {
    return { ...use(container, await storage.opened), close: () => storage.close() };
  } catch (error) {
    await storage.close();
    throw error;
  }
}

/** `plant-store tokens`: the token administration over the configured storage. */
export const openTokenAdministration = (config: Config, configure?: Configure) =>
  openWith(config, configure, administrations);

/** `plant-store webhooks`: webhook administration over the configured storage's subscriptions. */
export const openWebhookAdministration = (config: Config, configure?: Configure) =>
  openWith(config, configure, (container, opened) => {
    if (opened.webhooks === undefined) {
      throw new Error(`webhooks are not available with the ${config.storage.kind} storage`);
    }
    return administrations(container);
  });

/** export, import, backup, check: the plant store (observed), snapshots, backup and check if any. */
export const openPlantStore = (config: Config, configure?: Configure) =>
  openWith(config, configure, (container, opened) => ({
    plants: container.get(TYPES.PlantStore),
    ...(opened.snapshot && { snapshot: opened.snapshot.bind(opened) }),
    ...(opened.backup && { backup: opened.backup.bind(opened) }),
    ...(opened.check && { check: opened.check.bind(opened) }),
  }));
