import { writeSync } from 'node:fs';
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
/** What is held while stdout takes no writes (a full disk): lines beyond it are dropped. */
const HELD_BYTES = 1 << 20;

/** sonic-boom's own fields, which the flush below reads and empties. */
type Destination = ReturnType<typeof pino.destination> & {
  fd: number;
  _writing: boolean;
  _writingBuf: string;
  _bufs: string[];
  _len: number;
};

/**
 * The destination's flushSync (what pino calls as the process exits): what it holds is written
 * once, and the first error ends it, losing the rest. sonic-boom's own retries any error but
 * EAGAIN for ever: a full disk's ENOSPC kept the process in Atomics.wait, deaf to SIGTERM.
 */
function writeHeld(destination: Destination): void {
  const held = [destination._writing ? '' : destination._writingBuf, ...destination._bufs];
  destination._bufs = [];
  destination._writingBuf = '';
  destination._len = 0;
  let text = Buffer.from(held.join(''));
  while (text.length > 0) text = text.subarray(writeSync(destination.fd, text));
}

/** pino's buffered destination on stdout, flushed on its period and (by pino) as the process exits. */
function bufferedStdout(): Destination {
  const destination = pino.destination({
    dest: 1,
    sync: false,
    minLength: BUFFER_BYTES,
    periodicFlush: FLUSH_MS,
    maxLength: HELD_BYTES,
  }) as Destination;
  destination.flushSync = () => writeHeld(destination);
  return destination;
}

/**
 * A write that fails (a full disk, a closed pipe) is tried again on the next flush, holding at
 * most HELD_BYTES; lines beyond are dropped, and their count logged once stdout writes again.
 * Without a listener, sonic-boom's 'error' was thrown and ended the process.
 */
function reportDrops(destination: Destination, logger: Logger): void {
  let dropped = 0;
  destination.on('error', () => {});
  destination.on('drop', () => void dropped++);
  destination.on('write', () => {
    if (dropped === 0) return;
    const lines = dropped;
    dropped = 0;
    logger.warn({ dropped: lines }, 'log lines dropped: stdout took no writes');
  });
}

/**
 * pino, writing JSON lines to stdout (or `destination`); the Authorization header is never part of
 * what is logged.
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const stdout = destination === undefined ? bufferedStdout() : undefined;
  const logger = pino(
    { level, base: { service: 'plant-store' }, redact: ['req.headers.authorization'] },
    destination ?? stdout!,
  );
  if (stdout !== undefined) reportDrops(stdout, logger);
  return logger;
}
