/** Driven port: structured logging, shaped like pino so that its loggers fit as they are. */
export interface Logger {
  debug(fields: object, message?: string): void;
  info(fields: object, message?: string): void;
  warn(fields: object, message?: string): void;
  error(fields: object, message?: string): void;
  child?(bindings: object): Logger; // adds `bindings` to each of its lines (pino's child loggers)
  isLevelEnabled?(level: string): boolean; // whether a line at `level` is written (absent: yes)
}
