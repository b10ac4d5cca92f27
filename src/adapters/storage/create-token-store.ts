import type { TokenStore } from '../../ports/token-store.js';
import type { Config } from '../config.js';
import { FileTokenStore } from './file/file-token-store.js';

export const DEFAULT_TOKEN_FILE = '.plant-store/tokens.json';

/**
 * Opens where managed tokens live for the configured storage; adapters of servers are loaded only
 * when chosen. With `memory` they live in a file, because the `plant-store tokens` command cannot
 * reach the memory of a running server.
 */
export async function createTokenStore(config: Config): Promise<TokenStore> {
  switch (config.storage.kind) {
    case 'memory':
      return new FileTokenStore(config.tokenFile ?? DEFAULT_TOKEN_FILE);
    case 'redis': {
      const { RedisTokenStore } = await import('./redis/redis-token-store.js');
      return RedisTokenStore.open(config.storage);
    }
    case 'mongodb': {
      const { openMongoTokenStore } = await import('./mongodb/mongo-token-store.js');
      return openMongoTokenStore(config.storage.url);
    }
    default: {
      // Unreachable for typed callers; a plain-JS embedder may still pass anything.
      const unknown: { kind?: unknown } = config.storage;
      throw new Error(`storage ${String(unknown.kind)} is not available in this build`);
    }
  }
}
