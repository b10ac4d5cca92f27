import { writeSync } from 'node:fs';
import { pino, type DestinationStream } from 'pino';
import type { Logger } from '../ports/logger.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

// Lines are held by pino's destination (sonic-boom) until 4 kB wait or at most 10 ms: one write
// for many requests instead of one per line (bench/README.md's git history, "The access line").
// While stdout takes no writes (a full disk, a reader that stopped) up to 16 MiB are held, and
// lines beyond are dropped. The exit's flush waits at most 1 s for a slow pipe.
const HELD_BYTES = 16 << 20;
const EXIT_WAIT_MS = 1000;

/** sonic-boom's own fields, which the flush below reads and empties. */
type Destination = ReturnType<typeof pino.destination> & {
  fd: number;
  _writing: boolean;
  _writingBuf: string;
  _bufs: string[];
  _len: number;
};

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

/**
 * pino, writing JSON lines to `destination`, or to stdout through a buffer flushed on its period
 * and (by pino) as the process exits; the Authorization header is never part of what is logged.
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service: 'plant-store' },
    redact: ['req.headers.authorization'],
  };
  if (destination !== undefined) return pino(options, destination);
  const stdout = pino.destination({
    dest: 1,
    sync: false,
    minLength: 4096,
    periodicFlush: 10,
    maxLength: HELD_BYTES,
  }) as Destination;
  stdout.flushSync = () => writeHeld(stdout);
  const logger = pino(options, stdout);
  // A write that fails (a full disk, a closed pipe) is tried again on the next flush; lines past
  // HELD_BYTES are dropped, and their count logged once stdout writes again. Without a listener,
  // sonic-boom's 'error' was thrown and ended the process.
  let dropped = 0;
  stdout.on('error', () => {});
  stdout.on('drop', () => void dropped++);
  // Once sonic-boom has let go of what it wrote ('write' comes before): logged at once, the
  // report found the buffer still full and was dropped itself.
  const report = (): void => {
    if (dropped === 0) return;
    const lines = dropped;
    dropped = 0;
    logger.warn({ dropped: lines }, 'log lines dropped: stdout took no writes');
  };
  stdout.on('write', () => void (dropped > 0 && process.nextTick(report)));
  return logger;
}
