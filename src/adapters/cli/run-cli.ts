import { isPlantError } from '../../domain/errors.js';
import { ConfigError, loadConfig } from '../config.js';
import { createTokenStore } from '../storage/create-token-store.js';
import { EXIT, UsageError } from './exit-codes.js';
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

export const HELP = `Usage: plant-store <command> [options]

Commands:
  serve     run the HTTP service (configured by the environment; see the README)
  tokens    create, list and revoke managed API tokens

Options:
  -h, --help     show this help (also: plant-store <command> --help)

Exit codes: 0 success, 1 failure (configuration, storage, unexpected), 2 bad command line,
3 token not found.`;

const SERVE_HELP = `Usage: plant-store serve

Runs the HTTP service until SIGTERM or SIGINT. Configured by the environment (PORT, HOST,
PLANT_STORE_STORAGE, PLANT_STORE_TOKENS, PLANT_STORE_TOKEN_FILE, PLANT_STORE_JWT_*, ...).

Options:
  -h, --help     show this help`;

const COMMANDS = {
  create: { run: createToken, help: CREATE_HELP },
  list: { run: listTokens, help: LIST_HELP },
  revoke: { run: revokeToken, help: REVOKE_HELP },
} as const;

const wantsHelp = (args: readonly string[]) => args.includes('--help') || args.includes('-h');

const consoleIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** Runs one command line; resolves its exit code (`serve` resolves once the server listens). */
export async function runCli(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  io: Io = consoleIo,
): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined) throw new UsageError('a command is required: serve or tokens');
    if (command === '--help' || command === '-h' || command === 'help') {
      io.out(HELP);
      return EXIT.ok;
    }
    if (command === 'serve') {
      if (wantsHelp(rest)) return help(io, SERVE_HELP);
      if (rest.length > 0) throw new UsageError(`serve takes no arguments (got "${rest[0]}")`);
      const config = loadConfig(env);
      // Loaded only here: the token commands need neither Koa nor the container.
      const { serve } = await import('./serve.js');
      await serve(config);
      return EXIT.ok;
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
    const config = loadConfig(env);
    const store = await createTokenStore(config);
    try {
      return await tokens.run(store, args, io, config);
    } finally {
      await store.close();
    }
  } catch (error) {
    const known = command === 'tokens' && Object.hasOwn(COMMANDS, rest[0] ?? '');
    const usage = known ? `tokens ${rest[0]}` : command === 'tokens' ? 'tokens' : '';
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
  if (error instanceof ConfigError || (isPlantError(error) && !starting)) {
    // An operator may see what an HTTP caller may not: the cause names the file or server.
    const { cause } = error;
    io.err(`plant-store: ${cause instanceof Error ? cause.message : error.message}`);
    return EXIT.failure;
  }
  const what = starting ? 'failed to start' : 'failed';
  io.err(`plant-store: ${what}: ${error instanceof Error ? error.message : String(error)}`);
  return EXIT.failure;
}
