const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const MAX_LIFETIME_MS = 3650 * UNIT_MS.d;

/** Reads `30d`, `12h`, `45m` or `90s` as milliseconds, or `never` as undefined; throws otherwise. */
export function parseLifetime(text: string): number | undefined {
  if (text === 'never') return undefined;
  const match = /^([1-9][0-9]{0,6})([smhd])$/.exec(text);
  const ms = match ? Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] : NaN;
  if (!(ms <= MAX_LIFETIME_MS)) {
    throw new RangeError(
      `--expires-in must be a number of s, m, h or d up to 3650d, or never (got "${text}")`,
    );
  }
  return ms;
}
