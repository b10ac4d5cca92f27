import { Container } from 'inversify';
import type { Config } from '../config/index.js';
import type { Logger } from '../ports/logger.js';
import type { PlantStore } from '../ports/plant-store.js';
import type { Storage } from '../ports/storage.js';
import type { TokenAdministration } from '../ports/token-administration.js';
import type { WebhookAdministration } from '../ports/webhook-administration.js';
import { TYPES } from './identifiers.js';
import { applicationModule, baseModule } from './service-modules.js';
import { storageModule } from './storage-module.js';
import { telemetryModule } from './telemetry-module.js';

/** How long a command waits for a store that is not up: an operator wants a quick answer. */
const COMMAND_WAIT_SECONDS = 2;

/** The command's stdout carries its answer (a token, JSON): the library's lines stay out of it. */
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** What the operator must hear of (a legacy file taken in) goes to stderr, one line. */
const notice = (line: string): void => void process.stderr.write(`plant-store: ${line}\n`);

/** One administration over the configured storage, and how to release that storage. */
export interface OpenAdministration<A> {
  /** The administration, resolved from the container once its storage is open. */
  administration: A;
  close(): Promise<void>;
}

/**
 * The container of the CLI's `tokens` and `webhooks` commands: the modules `serve` loads (the same
 * bindings of storage, stores, decorators and use cases), less HTTP and delivery, with no metrics
 * and a quiet logger. `configure` may rebind identifiers first, as for `buildContainer`.
 */
export function buildAdministrationContainer(
  config: Config,
  configure?: (container: Container) => void,
): Container {
  const commandConfig = { ...config, metrics: false, startupTimeoutSeconds: COMMAND_WAIT_SECONDS };
  const container = new Container({ defaultScope: 'Singleton' });
  container.load(
    baseModule(commandConfig),
    telemetryModule(commandConfig),
    storageModule(commandConfig, notice),
    applicationModule(commandConfig),
  );
  container.rebind(TYPES.Logger).toConstantValue(quiet);
  configure?.(container);
  return container;
}

/** Resolves an administration once the container's storage is open; closes it when it cannot be. */
async function resolveOpen<A>(
  container: Container,
  resolve: (opened: Storage) => A,
): Promise<OpenAdministration<A>> {
  const storage = container.get(TYPES.Storage);
  try {
    return { administration: resolve(await storage.opened), close: () => storage.close() };
  } catch (error) {
    await storage.close();
    throw error;
  }
}

/** `plant-store tokens`: the token administration over the configured storage. */
export async function openTokenAdministration(
  config: Config,
  configure?: (container: Container) => void,
): Promise<{ tokenAdministration: TokenAdministration; close(): Promise<void> }> {
  const container = buildAdministrationContainer(config, configure);
  const open = await resolveOpen(container, () => container.get(TYPES.TokenAdministration));
  return { tokenAdministration: open.administration, close: open.close };
}

/** `plant-store webhooks`: webhook administration over the configured storage's subscriptions. */
export async function openWebhookAdministration(
  config: Config,
  configure?: (container: Container) => void,
): Promise<{ webhookAdministration: WebhookAdministration; close(): Promise<void> }> {
  const container = buildAdministrationContainer(config, configure);
  const open = await resolveOpen(container, (opened) => {
    if (opened.webhooks === undefined) {
      throw new Error(`webhooks are not available with the ${config.storage.kind} storage`);
    }
    return container.get(TYPES.WebhookAdministration);
  });
  return { webhookAdministration: open.administration, close: open.close };
}

/** What `export`, `import` and `backup` use of the storage. */
export type PlantStorage = Pick<Storage, 'plants' | 'snapshot' | 'backup' | 'check' | 'close'>;

/**
 * `plant-store export`, `import` and `backup`: the configured storage's plant store (observed, as
 * `serve` binds it), and its snapshots and backup where it has them; no HTTP and no webhook
 * delivery (an import records no event).
 */
export async function openPlantStore(
  config: Config,
  configure?: (container: Container) => void,
): Promise<PlantStorage> {
  const container = buildAdministrationContainer(config, configure);
  const open = await resolveOpen(container, (opened) => ({
    plants: container.get<PlantStore>(TYPES.PlantStore),
    ...(opened.snapshot && { snapshot: opened.snapshot.bind(opened) }),
    ...(opened.backup && { backup: opened.backup.bind(opened) }),
    ...(opened.check && { check: opened.check.bind(opened) }),
  }));
  return { ...open.administration, close: open.close };
}
