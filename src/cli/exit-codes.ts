/** Exit codes scripts can rely on (docs/tokens.md, "Commands"). */
export const EXIT = {
  ok: 0,
  /** Configuration, storage or anything unexpected failed. */
  failure: 1,
  /** The command line is wrong: unknown command or option, bad value, missing tenant or scope. */
  usage: 2,
  /** `tokens revoke` found no token with that id. */
  notFound: 3,
  /** `import` did not take every plant: bad lines, a conflict under fail, quota, a file cut short. */
  incomplete: 4,
  /** `export` or `import` stopped by Ctrl-C (128 + SIGINT); SIGTERM gives 143, SIGHUP 129. */
  interrupted: 130,
} as const;

/** A refusal of the command line; the CLI prints its message and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
