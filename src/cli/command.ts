import { printableText } from '../domain/printable-text.js';
import type { Config } from '../config/index.js';

/** Where a command writes: its answer on `out`, everything else on `err`. */
export interface Io {
  out(line: string): void;
  err(line: string): void;
  /** Rewrites one status line (empty: clears it); present only when stderr is a terminal. */
  progress?(line: string): void;
}

/** The process's stdout and stderr, a line at a time. */
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

/** Runs a command's arguments (without --help); resolves its exit code. */
export type Run = (args: string[], env: NodeJS.ProcessEnv, io: Io) => Promise<number>;

/** A command: its help, and how it runs (absent: this application cannot run it). */
export interface Command {
  help: string;
  run?: Run | undefined;
}

/** Opens an administration over the configured storage, with how to release that storage. */
export type Open<Opened> = (config: Config) => Promise<Opened & { close(): Promise<void> }>;

/** A command of `tokens` or `webhooks`: it runs over what the group opens on the shared storage. */
export interface SubCommand<Opened> {
  help: string;
  run(opened: Opened, args: string[], io: Io, config: Config): Promise<number>;
}

export const iso = (date: Date | undefined): string =>
  date === undefined ? '-' : date.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Prints records as one JSON array, or as a table: the header, then a row each. */
export function printList<T>(
  io: Io,
  json: boolean | undefined,
  records: T[],
  header: string[],
  row: (record: T) => string[],
): void {
  if (json) return io.out(JSON.stringify(records));
  const rows = [header, ...records.map(row)];
  const widths = header.map((_, column) => Math.max(...rows.map((cells) => cells[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ');
  for (const cells of rows) io.out(line(cells).trimEnd());
}
