/** Driven port: structured logging, shaped like pino so that its loggers fit as they are. */
export interface Logger {
  debug(fields: object, message?: string): void;
  info(fields: object, message?: string): void;
  warn(fields: object, message?: string): void;
  error(fields: object, message?: string): void;
  /** Adds `bindings` to each of its lines (pino's child loggers) */
  child?(bindings: object): Logger;
  /** Whether a line at `level` is written (absent: yes) */
  isLevelEnabled?(level: string): boolean;
}
