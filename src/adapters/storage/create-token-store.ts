import type { TokenStore } from '../../ports/token-store.js';
import type { Config } from '../config.js';
import { FileTokenStore } from './file/file-token-store.js';

export const DEFAULT_TOKEN_FILE = '.plant-store/tokens.json';

/**
 * Opens where managed tokens live for the configured storage, or resolves undefined when that
 * storage has no token store in this build. With `memory` they live in a file, because the
 * `plant-store tokens` command cannot reach the memory of a running server.
 */
export async function createTokenStore(config: Config): Promise<TokenStore | undefined> {
  switch (config.storage.kind) {
    case 'memory':
      return new FileTokenStore(config.tokenFile ?? DEFAULT_TOKEN_FILE);
    case 'mongodb': {
      const { openMongoTokenStore } = await import('./mongodb/mongo-token-store.js');
      return openMongoTokenStore(config.storage.url);
    }
    default:
      return undefined;
  }
}
