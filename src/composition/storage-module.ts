import { ContainerModule } from 'inversify';
import type { Config } from '../config/index.js';
import { openStorage } from './open-storage.js';
import { StartingStorage } from '../adapters/storage/starting-storage.js';
import { IN_PROCESS } from '../adapters/limits/limiter-store.js';
import { TYPES } from './identifiers.js';

/**
 * The configured storage technology: its opener (memory, Redis or MongoDB, chosen by
 * PLANT_STORE_STORAGE; a server's driver is loaded only when chosen), the storage as it opens, and
 * its plant and token stores, and the connection it lends the limits. Nothing connects until the service is resolved.
 * `notice`: where the opener's lines for the operator go (default: the logger).
 */
export const storageModule = (config: Config, notice?: (line: string) => void): ContainerModule =>
  new ContainerModule(({ bind }) => {
    bind(TYPES.StorageOpener).toResolvedValue(
      (logger, outages) => (signal: AbortSignal) =>
        openStorage(config, { logger, signal, outages, ...(notice && { notice }) }),
      [TYPES.Logger, TYPES.Outages],
    );
    bind(TYPES.Storage).toResolvedValue((open) => new StartingStorage(open), [TYPES.StorageOpener]);
    bind(TYPES.LimiterStore).toResolvedValue(
      (storage) => () => storage.opened.then((opened) => opened.limiterStore ?? IN_PROCESS),
      [TYPES.Storage],
    );
    bind(TYPES.PlantStore).toResolvedValue((storage) => storage.plants, [TYPES.Storage]);
    bind(TYPES.TokenStore).toResolvedValue((storage) => storage.tokens, [TYPES.Storage]);
  });
