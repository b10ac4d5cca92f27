import type { TokenAdministration } from '../ports/token-administration.js';
import { TokenAdministrator } from '../application/token-administrator.js';
import type { Config } from '../config/index.js';
import { openStorage } from './open-storage.js';

/** How long a `tokens` command waits for a store that is not up. */
const COMMAND_WAIT_MS = 2000;

/** The token administration over the configured storage, and how to release it. */
interface OpenTokenAdministration {
  tokens: TokenAdministration;
  /** Closes the storage's connection. */
  close(): Promise<void>;
}

/**
 * Composes the token administration alone, for the `plant-store tokens` command: the configured
 * storage and the administrator on its token store; no HTTP, no container.
 */
export async function openTokenAdministration(config: Config): Promise<OpenTokenAdministration> {
  // An operator at a terminal is better served by a quick answer than by the service's wait.
  const storage = await openStorage(config, { startupTimeoutMs: COMMAND_WAIT_MS });
  return { tokens: new TokenAdministrator(storage.tokens), close: () => storage.close() };
}
