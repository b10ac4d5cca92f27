/** A configuration mistake; its message is one line that names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
