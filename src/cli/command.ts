// What every command shares: where it writes, its exit codes, its option parsing, and the
// storage a server uses.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { printableText } from '../domain/printable-text.js';
import { ConfigError, loadConfig, type Config } from '../config/index.js';

/** Exit codes scripts can rely on (docs/tokens.md, "Commands"). */
export const EXIT = {
  ok: 0,
  failure: 1, // configuration, storage or anything unexpected
  usage: 2, // the command line: unknown command or option, bad value, missing tenant or scope
  notFound: 3, // no token or webhook with that id
  incomplete: 4, // import did not take every plant: bad lines, a conflict under fail, quota, cut short
} as const;

/** A refusal of the command line; the CLI prints its message and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Where a command writes: its answer on `out`, everything else on `err`. */
export interface Io {
  out(line: string): void;
  err(line: string): void;
  /** Rewrites one status line (empty: clears it); present only when stderr is a terminal. */
  progress?(line: string): void;
}

export const consoleIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  // A reason may quote a file, a server or a receiver: none may write a control sequence to the
  // operator's terminal.
  err: (line) => process.stderr.write(`${printableText(line)}\n`),
  // Progress only for a person at a terminal: a log or a pipe gets the summary line alone.
  ...(process.stderr.isTTY && {
    progress: (line: string) => process.stderr.write(`\r\x1b[K${line}`),
  }),
};

/** A command: its help, and how it runs its arguments (absent: this application cannot run it). */
export interface Command {
  help: string;
  run?: ((args: string[], env: NodeJS.ProcessEnv, io: Io) => Promise<number>) | undefined;
}

/** Opens an administration over the configured storage, with how to release that storage. */
export type Open<Opened> = (config: Config) => Promise<Opened & { close(): Promise<void> }>;

/** A command of `tokens` or `webhooks`: it runs over what the group opens on the shared storage. */
export interface SubCommand<Opened> {
  help: string;
  run(opened: Opened, args: string[], io: Io, config: Config): Promise<number>;
}

/**
 * `parseArgs`, but an option that takes one value and is given twice is refused: taking the last
 * silently would let `--tenant a ... --tenant b` issue a token for a tenant the reader missed.
 */
export function parseOptions<T extends ParseArgsConfig>(
  config: T,
): ReturnType<typeof parseArgs<T>> {
  const parsed = parseArgs({ ...config, tokens: true });
  const seen = new Set<string>();
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== 'option' || config.options?.[token.name]?.multiple === true) continue;
    if (seen.has(token.name)) throw new UsageError(`--${token.name} is given more than once`);
    seen.add(token.name);
  }
  return parsed as ReturnType<typeof parseArgs<T>>;
}

export const iso = (date: Date | undefined): string =>
  date === undefined ? '-' : date.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Prints rows of cells as aligned columns, two spaces apart. */
export function printTable(io: Io, rows: string[][]): void {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((cells) => cells[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ');
  for (const cells of rows) io.out(line(cells).trimEnd());
}

/** Prints records as one JSON array, or as a table: the header, then a row each. */
export function printList<T>(
  io: Io,
  json: boolean | undefined,
  records: T[],
  header: string[],
  row: (record: T) => string[],
): void {
  if (json) io.out(JSON.stringify(records));
  else printTable(io, [header, ...records.map(row)]);
}

/** The configuration of a command on the store a server uses: refused on the memory storage. */
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
