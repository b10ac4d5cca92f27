import { ConfigError, loadConfig, type Config } from '../config/index.js';
import type { Command, SubCommand } from './command.js';

/**
 * The configuration of a command that acts on the store a server uses (tokens, webhooks, export,
 * import): refused, in one line, on the memory storage, which keeps everything inside the serving
 * process where no other process reaches it (and writes no file for one to share).
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

/** Commands of tokens or webhooks, each run over what `open` opens on the shared storage. */
export function onSharedStorage<Opened extends { close(): Promise<void> }>(
  what: string,
  open: (config: Config) => Promise<Opened>,
  commands: Record<string, SubCommand<NoInfer<Opened>>>,
): Record<string, Command> {
  const over = ({ help, run }: SubCommand<Opened>): Command => ({
    help,
    run: async (args, env, io) => {
      const config = sharedStorageConfig(env, what);
      const opened = await open(config);
      try {
        return await run(opened, args, io, config);
      } finally {
        await opened.close();
      }
    },
  });
  return Object.fromEntries(
    Object.entries(commands).map(([name, command]) => [name, over(command)]),
  );
}
