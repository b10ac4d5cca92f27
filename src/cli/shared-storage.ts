import { ConfigError, loadConfig, type Config } from '../config/index.js';

/**
 * The configuration of a command that acts on the store a server uses (tokens, webhooks, export,
 * import): refused on the memory storage, which keeps everything inside the serving process.
 */
export function sharedStorageConfig(env: NodeJS.ProcessEnv, what: string): Config {
  const config = loadConfig(env);
  if (config.storage.kind === 'memory') {
    throw new ConfigError(
      `PLANT_STORE_STORAGE=memory keeps ${what} inside the serving process, which this command cannot reach; use the durable default (PLANT_STORE_STORAGE unset, or lmdb), redis or mongodb`,
    );
  }
  return config;
}

/** Runs `use` over what `open` opens on the shared storage, and closes it after. */
export async function withSharedStorage<T extends { close(): Promise<void> }>(
  env: NodeJS.ProcessEnv,
  what: string,
  open: (config: Config) => Promise<T>,
  use: (opened: T, config: Config) => Promise<number>,
): Promise<number> {
  const config = sharedStorageConfig(env, what);
  const opened = await open(config);
  try {
    return await use(opened, config);
  } finally {
    await opened.close();
  }
}
