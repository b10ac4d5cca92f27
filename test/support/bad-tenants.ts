/** Tenants no token may name, whatever its kind. */
export const BAD_TENANTS: readonly [string, string][] = [
  ['empty', ''],
  ['a space', ' '],
  ['only whitespace (tab, no-break space, ideographic space)', '\t\u00a0\u3000'],
  ['a NUL', 'x\u0000'],
  ['a C1 control', 'x\u0085'],
  ['a lone high surrogate', 'x\ud800'],
  ['a lone low surrogate', '\udc00x'],
  ['a right-to-left override', 'gpj.\u202Eexe'],
  ['a left-to-right embedding', '\u202Ax'],
  ['a first-strong isolate', 'x\u2068y'],
  ['a pop directional isolate', 'x\u2069'],
  ['a left-to-right mark', 'x\u200E'],
  ['a right-to-left mark', 'x\u200F'],
  ['an Arabic letter mark', 'x\u061C'],
  ['257 characters', 'x'.repeat(257)],
];
