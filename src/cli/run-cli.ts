import { readFileSync } from 'node:fs';
import { isPlantError } from '../domain/errors.js';
import { printableText } from '../domain/printable-text.js';
import type { TokenAdministration } from '../ports/token-administration.js';
import { ConfigError, loadConfig, type Config } from '../config/index.js';
import { StorageOpenError } from '../adapters/storage/storage-open-error.js';
import { EXIT, UsageError } from './exit-codes.js';
import { parseServeOptions, type ServeOptions } from './serve-options.js';
import { sharedStorageConfig } from './shared-storage.js';
import {
  CREATE_HELP,
  createToken,
  LIST_HELP,
  listTokens,
  REVOKE_HELP,
  revokeToken,
  TOKENS_HELP,
  type Io,
} from './token-commands.js';
import { runWebhookCommand } from './webhook-commands.js';
import {
  EXPORT_HELP,
  exportCommand,
  IMPORT_HELP,
  importCommand,
  type OpenPlantStore,
} from './transfer-commands.js';
import type { WebhookAdministration } from '../ports/webhook-administration.js';
import { BACKUP_HELP, backupCommand } from './backup-command.js';
import { applyEnvFile, CONFIG_HELP, configCommand } from './config-command.js';

/** What the command line drives; the composition supplies it (src/cli.ts). */
export interface CliApplication {
  /** Runs the service (in worker processes when asked); resolves once it listens, rejects when it cannot start. */
  serve(config: Config, options: ServeOptions): Promise<unknown>;
  /** Opens the token administration over the configured storage, and how to release it. */
  openTokenAdministration(
    config: Config,
  ): Promise<{ tokenAdministration: TokenAdministration; close(): Promise<void> }>;
  /** Opens webhook administration over the configured storage (absent: no `webhooks` command). */
  openWebhookAdministration?(
    config: Config,
  ): Promise<{ webhookAdministration: WebhookAdministration; close(): Promise<void> }>;
  /** Opens the configured storage's plant store (absent: no `export`, `import` and `backup` commands). */
  openPlantStore?: OpenPlantStore;
}

/** The package's version: package.json sits two folders up from src/cli and dist/cli alike. */
function version(): string {
  const url = new URL('../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
}

const HELP = `Usage: plant-store <command> [options]

Commands:
  serve     run the HTTP service (configured by the environment; see docs/operations.md)
  tokens    create, list and revoke managed API tokens
  webhooks  add, list, remove and rotate webhook subscriptions (docs/webhooks.md)
  export    write every plant as NDJSON, to stdout or a file (docs/operations.md)
  import    read an export into the configured storage
  backup    copy the embedded store (lmdb) to a file while it serves
  config    print the effective configuration and where each value came from

Options:
  -h, --help     show this help (also: plant-store <command> --help)
  -v, --version  print the version
  --env-file F   before the command: read variables from F (KEY=value lines) unless set

Exit codes: 0 success, 1 failure (configuration, storage, unexpected), 2 bad command line,
3 token or webhook not found, 4 import did not take every plant, 130 / 143 / 129 export or
import stopped by SIGINT / SIGTERM / SIGHUP.`;

const SERVE_HELP = `Usage: plant-store serve [--workers N|auto]

Runs the HTTP service until SIGTERM or SIGINT. Configured by the environment (PORT, HOST,
PLANT_STORE_STORAGE, PLANT_STORE_DATA_DIR, PLANT_STORE_TOKENS, PLANT_STORE_JWT_*, ...).

Options:
  --workers N|auto   serve from N worker processes on one port (auto: one per core), sharing
                     one store: lmdb (the default), redis or mongodb; not memory
  -h, --help         show this help`;

const COMMANDS = {
  create: { run: createToken, help: CREATE_HELP },
  list: { run: listTokens, help: LIST_HELP },
  revoke: { run: revokeToken, help: REVOKE_HELP },
} as const;

const TRANSFERS = {
  export: { run: exportCommand, help: EXPORT_HELP },
  import: { run: importCommand, help: IMPORT_HELP },
  backup: { run: backupCommand, help: BACKUP_HELP },
} as const;

const wantsHelp = (args: readonly string[]) => args.includes('--help') || args.includes('-h');

/** The process's stdout and stderr, a line at a time. */
export const consoleIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  // Every line on stderr escaped: a reason may quote a file, a server or a receiver, and none may
  // write a control sequence to the operator's terminal (the line's own layout needs none).
  err: (line) => process.stderr.write(`${printableText(line)}\n`),
  // Progress only for a person at a terminal: a log or a pipe gets the summary line alone.
  ...(process.stderr.isTTY && {
    progress: (line: string) => process.stderr.write(`\r\x1b[K${line}`),
  }),
};

/** Runs one command line; resolves its exit code (`serve` resolves once the server serves: its storage open). */
export async function runCli(
  commandLine: readonly string[],
  env: NodeJS.ProcessEnv,
  io: Io,
  application: CliApplication,
): Promise<number> {
  let line;
  try {
    line = applyEnvFile(commandLine, env);
  } catch (error) {
    return failure(error, io, '', false);
  }
  const [command, ...rest] = line.argv;
  try {
    if (command === undefined) throw new UsageError('a command is required: serve or tokens');
    if (command === '--version' || command === '-v') {
      io.out(version());
      return EXIT.ok;
    }
    if (command === '--help' || command === '-h' || command === 'help') {
      io.out(HELP);
      return EXIT.ok;
    }
    if (command === 'serve') {
      if (wantsHelp(rest)) return help(io, SERVE_HELP);
      const options = parseServeOptions(rest);
      const config = loadConfig(env);
      if (options.workers !== undefined && config.storage.kind === 'memory') {
        throw new UsageError(
          '--workers needs a storage the workers share (lmdb, the default, redis or mongodb): the memory storage keeps plants inside one process, which other workers cannot see',
        );
      }
      await application.serve(config, options);
      return EXIT.ok;
    }
    if (command === 'config') {
      return wantsHelp(rest) ? help(io, CONFIG_HELP) : configCommand(env, io, line.fromFile);
    }
    if (command === 'webhooks' && application.openWebhookAdministration) {
      return await runWebhookCommand(rest, env, io, application.openWebhookAdministration);
    }
    const transfer = TRANSFERS[command as keyof typeof TRANSFERS];
    if (Object.hasOwn(TRANSFERS, command) && application.openPlantStore) {
      if (wantsHelp(rest)) return help(io, transfer.help);
      return await transfer.run(rest, env, io, application.openPlantStore);
    }
    if (command !== 'tokens') throw new UsageError(`unknown command "${command}"`);
    const [sub, ...args] = rest;
    if (sub === undefined || sub === '--help' || sub === '-h') {
      if (sub === undefined) throw new UsageError('tokens needs a command: create, list or revoke');
      return help(io, TOKENS_HELP);
    }
    const tokens = Object.hasOwn(COMMANDS, sub)
      ? COMMANDS[sub as keyof typeof COMMANDS]
      : undefined;
    if (tokens === undefined) throw new UsageError(`unknown tokens command "${sub}"`);
    // Help needs no configuration and opens no storage.
    if (wantsHelp(args)) return help(io, tokens.help);
    const config = sharedStorageConfig(env, 'managed tokens');
    const administration = await application.openTokenAdministration(config);
    try {
      return await tokens.run(administration.tokenAdministration, args, io, config);
    } finally {
      await administration.close();
    }
  } catch (error) {
    const known = command === 'tokens' && Object.hasOwn(COMMANDS, rest[0] ?? '');
    const usage = known
      ? `tokens ${rest[0]}`
      : command !== undefined &&
          ['tokens', 'webhooks', 'serve', 'export', 'import', 'backup', 'config'].includes(command)
        ? command
        : '';
    return failure(error, io, usage, command === 'serve');
  }
}

function help(io: Io, text: string): number {
  io.out(text);
  return EXIT.ok;
}

function failure(error: unknown, io: Io, usage: string, starting: boolean): number {
  const code = (error as { code?: unknown } | null)?.code;
  if (
    error instanceof UsageError ||
    (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))
  ) {
    io.err(`plant-store: ${(error as Error).message}`);
    io.err(`Run "plant-store ${usage === '' ? '' : `${usage} `}--help" for usage.`);
    return EXIT.usage;
  }
  // Configuration errors are one line naming the variable; a failing start says so first.
  if (error instanceof ConfigError || (error instanceof StorageOpenError && !starting)) {
    io.err(`plant-store: ${error.message}`);
    return EXIT.failure;
  }
  if (isPlantError(error) && !starting) {
    // An operator may see what an HTTP caller may not: the cause names the file or server.
    const { cause } = error;
    io.err(`plant-store: ${cause instanceof Error ? cause.message : error.message}`);
    return EXIT.failure;
  }
  const what = starting ? 'failed to start' : 'failed';
  io.err(`plant-store: ${what}: ${error instanceof Error ? error.message : String(error)}`);
  return EXIT.failure;
}
