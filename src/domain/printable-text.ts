// Cc: C0, DEL, C1 (ESC, CR, BEL, CSI U+009B...): they move the cursor, retitle a window, clear a
// screen. Cs: unpaired surrogates. Cf: format controls, the bidirectional ones (U+200E, U+200F,
// U+202A-U+202E, U+2066-U+2069, U+061C) among them, and the zero-width ones. Zl, Zp: U+2028 and
// U+2029, line breaks to some readers.
const UNPRINTABLE = /[\p{Cc}\p{Cs}\p{Cf}\p{Zl}\p{Zp}]/gu;

// \uXXXX per UTF-16 unit (a surrogate pair above U+FFFF): the escape JSON and JavaScript read, so
// that escaped JSON text stays JSON with the same meaning.
const escape = (character: string): string =>
  character
    .split('') // UTF-16 units, not code points
    .map((unit) => `\\u${unit.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`)
    .join('');

/**
 * The text with every control, format and bidirectional character written as a `\uXXXX` escape:
 * what to print of any text that comes from outside (a file, a request, a receiver's answer) to a
 * terminal or a log, so that it can neither rewrite the operator's screen nor display as other
 * text. Printable text, a backslash among it, is kept as it is.
 */
export const printableText = (text: string): string => text.replace(UNPRINTABLE, escape);
