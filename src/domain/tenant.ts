const MAX_TENANT_LENGTH = 256;

// Cc: C0, DEL and C1 controls (NUL among them) would rewrite an operator's terminal or end a C string.
// Cs: unpaired surrogates (all the u flag matches) have no UTF-8, so two tenants differing by one
// would merge in a store that keeps UTF-8. The rest: bidirectional embeddings, overrides, isolates
// and marks, which make a text display as another one.
const UNSAFE_CHARACTER = /[\p{Cc}\p{Cs}\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/u;

/** The text's length in code points (an unpaired surrogate counts as one). */
export const codePoints = (text: string): number => [...text].length;

/** Whether the text holds a character no label, tenant, plant name or tag may hold (the rule above). */
export const hasUnsafeCharacter = (text: string): boolean => UNSAFE_CHARACTER.test(text);

/** Why the text cannot label anything an operator reads, or undefined; empty text passes. */
export function checkLabel(text: string): string | undefined {
  if (hasUnsafeCharacter(text)) {
    return 'must be free of control characters, unpaired surrogates and bidirectional controls';
  }
  if (text !== '' && text.trim() === '') return 'must be more than whitespace';
  return undefined;
}

const NOT_NFC =
  'must be in Unicode normalization form C (NFC: composed characters, as most keyboards type them)';

/** Why a value is not a tenant (1 to 256 code points, a label, NFC) at any door, or undefined. */
export function checkTenant(tenant: unknown): string | undefined {
  if (typeof tenant !== 'string' || tenant === '') return 'must be a non-empty string';
  // A UTF-16 length above twice the bound is too long without counting.
  if (tenant.length > 2 * MAX_TENANT_LENGTH || codePoints(tenant) > MAX_TENANT_LENGTH) {
    return `must be at most ${MAX_TENANT_LENGTH} characters`;
  }
  // `a` + U+0301 and `á` display alike but are two strings: refused rather than normalised,
  // since normalising would merge two tenants a store may already hold apart.
  return checkLabel(tenant) ?? (tenant.normalize('NFC') === tenant ? undefined : NOT_NFC);
}

export const isTenant = (tenant: unknown): tenant is string => checkTenant(tenant) === undefined;

/** The order every store lists tenants in: by code point (as UTF-8 bytes), not `<` (UTF-16). */
export function compareTenants(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate (U+D800-DFFF) stands for a code point above U+FFFF: it sorts after U+E000-FFFF.
    const surrogateX = x >= 0xd800 && x <= 0xdfff;
    const surrogateY = y >= 0xd800 && y <= 0xdfff;
    if (surrogateX !== surrogateY) return surrogateX ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}
