import { pino } from 'pino';
import { jsonString } from '../domain/json-text.js';
import type { Logger } from '../ports/logger.js';
import type { LogLevel } from './config/index.js';

const BASE = { service: 'plant-store' };
/** pino's number for `info`. */
const INFO = 30;

/** The fields of one access line (request-observer.ts), in the order they are written. */
export interface AccessFields {
  requestId: string;
  method: string;
  /** The route template; absent when no route took the request. */
  route: string | undefined;
  status: number;
  durationMs: number;
  size: number;
  tenant: string | undefined;
  /** The Error body's code, on failures. */
  error: number | undefined;
}

export type AccessLineWriter = (fields: AccessFields) => void;

const accessWriters = new WeakMap<Logger, AccessLineWriter>();

/** Access lines are held this long at most, or until this many wait, then written. */
const ACCESS_FLUSH_MS = 10;
const ACCESS_FLUSH_LINES = 64;

interface Destination {
  write(text: string): unknown;
  /** pino's destination (sonic-boom) writes what it holds at once; used as the process exits. */
  flushSync?(): void;
}

/** Writers holding lines; `process.exit()` does not wait for their timers, so they are flushed then. */
const holding = new Set<(atExit?: boolean) => void>();
let flushedAtExit = false;

/** The line pino writes for `info(fields, 'request')` at `time`. */
const accessLine = (
  { requestId, method, route, status, durationMs, size, tenant, error }: AccessFields,
  time: number,
): string =>
  `{"level":${INFO},"time":${time},"service":"${BASE.service}","requestId":${jsonString(requestId)}` +
  `,"method":${jsonString(method)}${route === undefined ? '' : `,"route":${jsonString(route)}`}` +
  `,"status":${status},"durationMs":${durationMs},"size":${size}` +
  `${tenant === undefined ? '' : `,"tenant":${jsonString(tenant)}`}` +
  `${error === undefined ? '' : `,"error":${error}`},"msg":"request"}\n`;

/**
 * Access lines for a logger made by `createLogger`: the very line pino would write for
 * `info(fields, 'request')` (same keys, order and values), built as one template string, and
 * handed to pino's destination together with the lines of the other requests answered within
 * `ACCESS_FLUSH_MS`: one write for many requests instead of pino's generic serialisation and a
 * destination write (a job for libuv's thread pool) per request. A request only leaves its fields
 * and the time; the lines are built together when written, in one loop, which costs less than
 * building each between the work of other requests (bench/README.md, "The access line"). pino's
 * own lines are written at once, so a line of a request that is still being answered can come
 * before the access lines of requests answered just earlier.
 */
function batchedAccessLines(destination: Destination): AccessLineWriter {
  const fields: AccessFields[] = [];
  const times: number[] = [];
  const flush = (atExit = false): void => {
    if (fields.length === 0) return;
    let text = '';
    for (let i = 0; i < fields.length; i++) text += accessLine(fields[i]!, times[i]!);
    fields.length = 0;
    times.length = 0;
    holding.delete(flush);
    destination.write(text);
    if (!atExit) return;
    try {
      destination.flushSync?.();
    } catch {
      // A destination that cannot write now (closed, not open yet) keeps what it holds.
    }
  };
  return (request) => {
    if (fields.length === 0) {
      setTimeout(flush, ACCESS_FLUSH_MS);
      holding.add(flush);
      if (!flushedAtExit) {
        flushedAtExit = true;
        process.once('exit', () => {
          for (const each of holding) each(true);
        });
      }
    }
    fields.push(request);
    times.push(Date.now());
    if (fields.length >= ACCESS_FLUSH_LINES) flush();
  };
}

/**
 * JSON lines on stdout (or `destination`); the Authorization header is never part of what is
 * logged. The default is pino's own (asynchronous writes to stdout), made here so that access
 * lines can share it.
 */
export function createLogger(
  level: LogLevel,
  destination: Destination = pino.destination(1),
): Logger {
  const logger = pino({ level, base: BASE, redact: ['req.headers.authorization'] }, destination);
  accessWriters.set(logger, batchedAccessLines(destination));
  return logger;
}

/**
 * How the access log writes through `logger`: batched and built by hand for a logger of
 * `createLogger`, `logger.info(fields, 'request')` for any other (a host's own logger).
 */
export const accessLineWriter = (logger: Logger): AccessLineWriter =>
  accessWriters.get(logger) ?? ((fields) => logger.info(fields, 'request'));
