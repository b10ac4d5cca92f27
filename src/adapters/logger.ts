import { writeSync } from 'node:fs';
import { pino, type DestinationStream } from 'pino';
import type { Logger } from '../ports/logger.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

// Lines are held (sonic-boom) until 4 kB wait or for 10 ms: one write for many requests. While
// stdout takes no writes (a full disk, a stopped reader) 16 MiB are held, later lines dropped.
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
 * The destination's flushSync, which pino calls at exit: waits at most EXIT_WAIT_MS for a slow
 * pipe; any other error loses the rest. sonic-boom's own retried ENOSPC for ever, deaf to SIGTERM.
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

/** pino: JSON lines to `destination` or to stdout, buffered; never the Authorization header. */
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
  // A failed write is tried again at the next flush; lines past HELD_BYTES are dropped and counted.
  // Without a listener, sonic-boom's 'error' was thrown and ended the process.
  let dropped = 0;
  stdout.on('error', () => {});
  stdout.on('drop', () => void dropped++);
  // Once sonic-boom lets go of what it wrote ('write' comes first): sooner, the report was dropped.
  const report = (): void => {
    if (dropped === 0) return;
    const lines = dropped;
    dropped = 0;
    logger.warn({ dropped: lines }, 'log lines dropped: stdout took no writes');
  };
  stdout.on('write', () => void (dropped > 0 && process.nextTick(report)));
  return logger;
}
