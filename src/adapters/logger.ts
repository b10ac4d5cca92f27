import { pino } from 'pino';
import type { Logger } from '../ports/logger.js';
import type { LogLevel } from './config/index.js';

/** JSON lines on stdout; the Authorization header is never part of what is logged. */
export const createLogger = (level: LogLevel): Logger =>
  pino({ level, base: { service: 'plant-store' }, redact: ['req.headers.authorization'] });
