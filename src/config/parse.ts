import { ConfigError } from '../adapters/config-error.js';

/** Milliseconds per unit of a duration such as `250ms`, `5s` or `30d`. */
export const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** The whole number variable `name` holds, or `fallback` when it is unset or empty. */
export function parseInteger(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  if (!/^[0-9]+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max} (got "${text}")`);
  }
  return Number(text);
}

/** The non-empty, trimmed items of a comma-separated list. */
export const parseList = (text: string): string[] =>
  text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');

/** "a, b or c": two choices or more, as an error message lists them. */
export const oneOf = (choices: readonly string[]): string =>
  `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}`;

/** An on/off switch: `on`/`off` (also `true`/`false`, `1`/`0`), or `fallback` when unset or empty. */
export function parseSwitch(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = text.toLowerCase();
  if (['on', 'true', '1'].includes(value)) return true;
  if (['off', 'false', '0'].includes(value)) return false;
  throw new ConfigError(`${name} must be on or off (got "${text}")`);
}
