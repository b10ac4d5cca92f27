import { pino, type DestinationStream } from 'pino';
import type { Logger } from '../ports/logger.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Lines are held by pino's destination (sonic-boom) until this many bytes wait, or at most
 * `FLUSH_MS`: one write for many requests instead of one per line (bench/README.md's git history, "The
 * access line"); a line a process writes as it exits is flushed then.
 */
const BUFFER_BYTES = 4096;
const FLUSH_MS = 10;

type Destination = ReturnType<typeof pino.destination>;

/** Destinations to flush as the process exits: one listener for every logger made here. */
const atExit = new Set<WeakRef<Destination>>();

function flushAtExit(destination: Destination): void {
  if (atExit.size === 0) {
    process.once('exit', () => {
      for (const held of atExit) {
        try {
          held.deref()?.flushSync();
        } catch {
          // A destination that cannot write now (closed, not open yet) keeps what it holds.
        }
      }
    });
  }
  atExit.add(new WeakRef(destination));
}

/** pino's buffered destination on stdout, flushed on its period and as the process exits. */
function bufferedStdout(): DestinationStream {
  const destination = pino.destination({
    dest: 1,
    sync: false,
    minLength: BUFFER_BYTES,
    periodicFlush: FLUSH_MS,
  });
  flushAtExit(destination);
  return destination;
}

/**
 * pino, writing JSON lines to stdout (or `destination`); the Authorization header is never part of
 * what is logged.
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    { level, base: { service: 'plant-store' }, redact: ['req.headers.authorization'] },
    destination ?? bufferedStdout(),
  );
}
