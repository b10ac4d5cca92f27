import { ConfigError } from '../adapters/config-error.js';
import { parseList } from './parse.js';

/** An origin as browsers send it in `Origin`: `scheme://host[:port]`, lower case, no default port. */
function checkOrigin(text: string): string {
  const origin = URL.canParse(text) ? new URL(text).origin : undefined;
  if (origin === text) return text;
  const hint = origin === undefined || origin === 'null' ? '' : `; did you mean ${origin}?`;
  throw new ConfigError(
    `PLANT_STORE_CORS_ORIGINS must be * or a comma-separated list of origins such as https://app.example or http://localhost:3000 (got "${text}"${hint})`,
  );
}

/** PLANT_STORE_CORS_ORIGINS: the origins whose pages may call the service, `*` any; unset: off. */
export function parseCorsOrigins(text: string | undefined): '*' | string[] | undefined {
  const origins = parseList(text ?? '');
  if (origins.length === 0) return undefined;
  if (origins.length === 1 && origins[0] === '*') return '*';
  return origins.map(checkOrigin);
}
