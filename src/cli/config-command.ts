import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { loadConfig } from '../config/index.js';
import { shown, VARIABLES, type Variable } from '../config/variables.js';
import { EXIT, type Io, printTable, UsageError } from './command.js';

export const CONFIG_HELP = `Usage: plant-store [--env-file FILE] config

Prints the configuration "serve" would use: every variable, its value, and where it came from
(environment, env file or default), checked as "serve" checks it (a bad value exits 1 naming
it). Tokens and keys show as "set", URLs without their password.

Options:
  -h, --help  show this help`;

/**
 * `--env-file FILE` before the command: FILE's variables join `env` (process.env for the bin,
 * so that workers and tracing see them), under those already set, as `node --env-file` does.
 * Resolves the rest of the command line and the names FILE gave.
 */
export function applyEnvFile(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): { argv: readonly string[]; fromFile: ReadonlySet<string> } {
  if (argv[0] !== '--env-file') return { argv, fromFile: new Set() };
  const file = argv[1];
  if (file === undefined) throw new UsageError('--env-file needs a file');
  const given = Object.entries(parseEnv(readFileSync(file, 'utf8'))).filter(
    ([name]) => env[name] === undefined,
  );
  Object.assign(env, Object.fromEntries(given));
  return { argv: argv.slice(2), fromFile: new Set(given.map(([name]) => name)) };
}

/** Whether the variable is read with this environment's storage and JWT settings. */
const applies = (variable: Variable, env: NodeJS.ProcessEnv): boolean =>
  variable.with === undefined ||
  (variable.with === 'jwt'
    ? (env.PLANT_STORE_JWT_ISSUER ?? '') !== ''
    : variable.with === (env.PLANT_STORE_STORAGE || 'lmdb'));

/** `plant-store config`: one line a variable, then any PLANT_STORE_* variable it does not know. */
export function configCommand(
  env: NodeJS.ProcessEnv,
  io: Io,
  fromFile: ReadonlySet<string>,
): number {
  loadConfig(env);
  const rows = VARIABLES.map((variable) => {
    const text = env[variable.name];
    const set = text !== undefined && text !== '';
    return [
      variable.name,
      set ? shown(variable, text) : (variable.default ?? (variable.secret ? 'unset' : 'none')),
      (set ? (fromFile.has(variable.name) ? 'env file' : 'environment') : 'default') +
        (applies(variable, env) ? '' : ` (not used: only with ${variable.with})`),
    ];
  });
  for (const name of Object.keys(env)) {
    if (!name.startsWith('PLANT_STORE_') || VARIABLES.some((known) => known.name === name))
      continue;
    const from = fromFile.has(name) ? 'env file' : 'environment';
    rows.push([name, 'set', `${from} (not a plant-store variable)`]);
  }
  printTable(io, rows);
  return EXIT.ok;
}
