// Cc: C0, DEL, C1 (ESC, CR, BEL, CSI U+009B...): they move the cursor, retitle a window, clear a
// screen. Cs: unpaired surrogates. Cf: format controls, the bidirectional ones (U+200E, U+200F,
// U+202A-U+202E, U+2066-U+2069, U+061C) among them, and the zero-width ones. Zl, Zp: U+2028 and
// U+2029, line breaks to some readers.
const UNPRINTABLE = /[\p{Cc}\p{Cs}\p{Cf}\p{Zl}\p{Zp}]/gu;

/**
 * Any outside text (a file, a request, a receiver's answer) as it may be printed to a terminal or
 * a log: every control, format and bidirectional character as a `\uXXXX` escape per UTF-16 unit,
 * which JSON reads too, so escaped JSON keeps its meaning. The rest, a backslash among it, is kept.
 */
export const printableText = (text: string): string =>
  text.replace(UNPRINTABLE, (character) =>
    character
      .split('') // UTF-16 units, not code points
      .map((unit) => `\\u${unit.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`)
      .join(''),
  );
