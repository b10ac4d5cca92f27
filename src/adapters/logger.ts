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

/**
 * Access lines for a logger made by `createLogger`: the very line pino would write for
 * `info(fields, 'request')` (same keys, order and values), built as one template string and
 * handed to pino's destination once per turn of the event loop for all the requests answered in
 * it. A line costs a few hundred nanoseconds instead of pino's generic serialisation and a
 * destination write per request (bench/README.md, "The access line"). Lines of one turn leave
 * together at the end of that turn (`setImmediate`), before any timer or later request; pino's
 * own lines keep their place around them within a turn.
 */
function batchedAccessLines(destination: { write(text: string): unknown }): AccessLineWriter {
  let pending = '';
  const flush = (): void => {
    const text = pending;
    pending = '';
    destination.write(text);
  };
  return ({ requestId, method, route, status, durationMs, size, tenant, error }) => {
    if (pending === '') setImmediate(flush);
    pending +=
      `{"level":${INFO},"time":${Date.now()},"service":"${BASE.service}","requestId":${jsonString(requestId)}` +
      `,"method":${jsonString(method)}${route === undefined ? '' : `,"route":${jsonString(route)}`}` +
      `,"status":${status},"durationMs":${durationMs},"size":${size}` +
      `${tenant === undefined ? '' : `,"tenant":${jsonString(tenant)}`}` +
      `${error === undefined ? '' : `,"error":${error}`},"msg":"request"}\n`;
  };
}

/**
 * JSON lines on stdout (or `destination`); the Authorization header is never part of what is
 * logged. The default is pino's own (asynchronous writes to stdout), made here so that access
 * lines can share it.
 */
export function createLogger(
  level: LogLevel,
  destination: { write(text: string): unknown } = pino.destination(1),
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
