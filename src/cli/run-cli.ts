import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { isPlantError } from '../domain/errors.js';
import { TokenRequestError } from '../domain/managed-token.js';
import { WebhookRequestError } from '../domain/webhook.js';
import { ConfigError, loadConfig, type Config } from '../config/index.js';
import { oneOf } from '../config/parse.js';
import { StorageOpenError } from '../adapters/storage/storage-open-error.js';
import { type Command, EXIT, type Io, onSharedStorage, UsageError } from './command.js';
import {
  type OpenTokens,
  type OpenWebhooks,
  TOKEN_COMMANDS,
  TOKENS_HELP,
  WEBHOOK_COMMANDS,
  WEBHOOKS_HELP,
} from './administration-commands.js';
import {
  BACKUP_HELP,
  backupCommand,
  CHECK_HELP,
  checkCommand,
  EXPORT_HELP,
  exportCommand,
  IMPORT_HELP,
  importCommand,
  type OpenPlantStore,
  type StoreCommand,
} from './transfer-commands.js';
import { applyEnvFile, CONFIG_HELP, configCommand } from './config-command.js';

export { consoleIo } from './command.js';

const SERVE_HELP = `Usage: plant-store serve [--workers N|auto]

Runs the HTTP service until SIGTERM or SIGINT. Configured by the environment (PORT, HOST,
PLANT_STORE_STORAGE, PLANT_STORE_DATA_DIR, PLANT_STORE_TOKENS, PLANT_STORE_JWT_*, ...).

Options:
  --workers N|auto   serve from N worker processes on one port (auto: one per core), sharing
                     one store: lmdb (the default), redis or mongodb; not memory
  -h, --help         show this help`;

/** `N` (1 to 256) or `auto` (one per core this process may use). */
function parseWorkers(value = ''): number {
  if (value === 'auto') return availableParallelism();
  if (/^[1-9][0-9]{0,2}$/.test(value) && Number(value) <= 256) return Number(value);
  throw new UsageError(`--workers must be a number from 1 to 256 or "auto" (got "${value}")`);
}

/**
 * `serve [--workers N|auto]` (also `--workers=N`); resolves once the service listens. Parsed by
 * hand: parseArgs would refuse `--workers` without a count or `--port 1` in words of its own.
 */
async function serveCommand(
  args: string[],
  env: NodeJS.ProcessEnv,
  serve: CliApplication['serve'],
): Promise<number> {
  let workers: number | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--workers') workers = parseWorkers(args[++i]);
    else if (arg.startsWith('--workers=')) workers = parseWorkers(arg.slice('--workers='.length));
    else throw new UsageError(`serve takes no arguments but --workers N|auto (got "${arg}")`);
  }
  const config = loadConfig(env);
  if (workers !== undefined && config.storage.kind === 'memory') {
    throw new UsageError(
      '--workers needs a storage the workers share (lmdb, the default, redis or mongodb): the memory storage keeps plants inside one process, which other workers cannot see',
    );
  }
  await serve(config, workers === undefined ? {} : { workers });
  return EXIT.ok;
}

/** What the command line drives; the composition supplies it (src/cli.ts). */
export interface CliApplication {
  /** Runs the service (in worker processes when asked); resolves once it listens, rejects when it cannot start. */
  serve(config: Config, options: { workers?: number }): Promise<unknown>;
  openTokenAdministration: OpenTokens;
  /** Absent: no `webhooks` command. */
  openWebhookAdministration?: OpenWebhooks;
  /** Absent: no `export`, `import` and `backup` commands. */
  openPlantStore?: OpenPlantStore;
}

/** A command of `plant-store --help`'s list: its line there, and the commands under it if any. */
type TopCommand = Command & { summary: string; commands?: Record<string, Command> | undefined };

/** Every command, in the order the help lists them (a new command is one entry here). */
function commandsOf(
  app: CliApplication,
  fromFile: ReadonlySet<string> = new Set(),
): Record<string, TopCommand> {
  const { openWebhookAdministration, openPlantStore } = app;
  const overStore = (summary: string, help: string, command: StoreCommand): TopCommand => ({
    summary,
    help,
    run: openPlantStore && ((args, env, io) => command(args, env, io, openPlantStore)),
  });
  return {
    serve: {
      summary: 'run the HTTP service (configured by the environment; see docs/operations.md)',
      help: SERVE_HELP,
      run: (args, env) => serveCommand(args, env, app.serve),
    },
    tokens: {
      summary: 'create, list and revoke managed API tokens',
      help: TOKENS_HELP,
      commands: onSharedStorage('managed tokens', app.openTokenAdministration, TOKEN_COMMANDS),
    },
    webhooks: {
      summary: 'add, list, remove and rotate webhook subscriptions (docs/webhooks.md)',
      help: WEBHOOKS_HELP,
      commands:
        openWebhookAdministration &&
        onSharedStorage('webhook subscriptions', openWebhookAdministration, WEBHOOK_COMMANDS),
    },
    export: overStore(
      'write every plant as NDJSON, to stdout or a file (docs/operations.md)',
      EXPORT_HELP,
      exportCommand,
    ),
    import: overStore('read an export into the configured storage', IMPORT_HELP, importCommand),
    backup: overStore(
      'copy the embedded store (lmdb) to a file while it serves',
      BACKUP_HELP,
      backupCommand,
    ),
    check: overStore(
      'read the whole embedded store (lmdb) and say what is wrong in it',
      CHECK_HELP,
      checkCommand,
    ),
    config: {
      summary: 'print the effective configuration and where each value came from',
      help: CONFIG_HELP,
      run: async (_args, env, io) => configCommand(env, io, fromFile),
    },
  };
}

const helpOf = (commands: Record<string, TopCommand>) => `Usage: plant-store <command> [options]

Commands:
${Object.entries(commands)
  .map(([name, { summary }]) => `  ${name.padEnd(10)}${summary}`)
  .join('\n')}

Options:
  -h, --help     show this help (also: plant-store <command> --help)
  -v, --version  print the version
  --env-file F   before the command: read variables from F (KEY=value lines) unless set

Exit codes: 0 success, 1 failure (configuration, storage, unexpected), 2 bad command line,
3 token or webhook not found, 4 import did not take every plant, 130 / 143 / 129 export or
import stopped by SIGINT / SIGTERM / SIGHUP, 141 stdout closed by its reader (| head).`;

// package.json sits two folders up from src/cli and dist/cli alike.
const version = () =>
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))
    .version as string;

const wantsHelp = (args: readonly string[]) => args.includes('--help') || args.includes('-h');
const own = <T>(table: Record<string, T> | undefined, name: string) =>
  table !== undefined && Object.hasOwn(table, name) ? table[name] : undefined;

const print = (io: Io, text: string): number => (io.out(text), EXIT.ok);

/** Runs one command line; resolves its exit code (`serve` resolves once the server serves: its storage open). */
export async function runCli(
  commandLine: readonly string[],
  env: NodeJS.ProcessEnv,
  io: Io,
  application: CliApplication,
): Promise<number> {
  let name: string | undefined;
  let usage = ''; // the command whose help a refusal points to
  try {
    const { argv, fromFile } = applyEnvFile(commandLine, env);
    const commands = commandsOf(application, fromFile);
    const [first, ...args] = argv;
    name = first;
    if (name === '--version' || name === '-v') return print(io, version());
    if (name === '--help' || name === '-h' || name === 'help') return print(io, helpOf(commands));
    if (name === undefined) {
      throw new UsageError(`a command is required: ${oneOf(Object.keys(commands))}`);
    }
    const top = own(commands, name);
    if (top === undefined || (top.run === undefined && top.commands === undefined)) {
      throw new UsageError(`unknown command "${name}"`);
    }
    usage = name;
    const [sub = '', ...subArgs] = args;
    // tokens and webhooks: the first argument names one of their commands, or asks their help.
    if (top.commands !== undefined && !wantsHelp([sub])) {
      const names = Object.keys(top.commands);
      if (sub === '') throw new UsageError(`${name} needs a command: ${oneOf(names)}`);
      const command = own(top.commands, sub);
      if (command === undefined) throw new UsageError(`unknown ${name} command "${sub}"`);
      usage = `${name} ${sub}`;
      return await helpOrRun(command, subArgs, env, io);
    }
    return await helpOrRun(top, args, env, io);
  } catch (error) {
    return failure(error, io, usage, name === 'serve');
  }
}

/** The help if asked (no configuration read, no storage opened), or the run (tokens and webhooks have none: they come for their help only). */
const helpOrRun = async ({ help, run }: Command, args: string[], env: NodeJS.ProcessEnv, io: Io) =>
  wantsHelp(args) ? print(io, help) : run!(args, env, io);

/** Prints why the command line failed; resolves its exit code. */
function failure(error: unknown, io: Io, usage: string, starting: boolean): number {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  // The administrations' refusals of a request are refusals of the command line.
  if (
    error instanceof UsageError ||
    error instanceof TokenRequestError ||
    error instanceof WebhookRequestError ||
    (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))
  ) {
    io.err(`plant-store: ${message}`);
    io.err(`Run "plant-store ${usage === '' ? '' : `${usage} `}--help" for usage.`);
    return EXIT.usage;
  }
  // An operator may see what an HTTP caller may not: the cause names the file or server.
  const cause = isPlantError(error) && error.cause instanceof Error ? error.cause.message : message;
  if (error instanceof ConfigError) io.err(`plant-store: ${message}`);
  else if (starting) io.err(`plant-store: failed to start: ${message}`);
  else if (isPlantError(error) || error instanceof StorageOpenError)
    io.err(`plant-store: ${cause}`);
  else io.err(`plant-store: failed: ${message}`);
  return EXIT.failure;
}
