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
/** Held while stdout takes no writes (a full disk, a reader that stopped); lines beyond are dropped. */
const HELD_BYTES = 16 << 20;

/** sonic-boom's own fields, which the flush below reads and empties. */
type Destination = ReturnType<typeof pino.destination> & {
  fd: number;
  _writing: boolean;
  _writingBuf: string;
  _bufs: string[];
  _len: number;
};

/** How long the exit's flush waits for a pipe whose reader is slow (EAGAIN). */
const EXIT_WAIT_MS = 1000;

/**
 * The destination's flushSync (what pino calls as the process exits): what it holds is written,
 * waiting at most EXIT_WAIT_MS for a slow pipe, and any other error ends it, losing the rest.
 * sonic-boom's own retries every error for ever (ENOSPC too): a full disk kept the process in
 * Atomics.wait, deaf to SIGTERM.
 */
function writeHeld(destination: Destination): void {
  const held = [destination._writing ? '' : destination._writingBuf, ...destination._bufs];
  destination._bufs = [];
  destination._writingBuf = '';
  destination._len = 0;
  let text = Buffer.from(held.join(''));
  const deadline = Date.now() + EXIT_WAIT_MS;
  while (text.length > 0) {
    try {
      text = text.subarray(writeSync(destination.fd, text));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || Date.now() > deadline) return;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
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
  // Once sonic-boom has let go of what it wrote ('write' comes before): logged at once, the
  // report found the buffer still full and was dropped itself.
  const report = (): void => {
    if (dropped === 0) return;
    const lines = dropped;
    dropped = 0;
    logger.warn({ dropped: lines }, 'log lines dropped: stdout took no writes');
  };
  destination.on('write', () => void (dropped > 0 && process.nextTick(report)));
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
