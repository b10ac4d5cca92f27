// Text with no quote, backslash, C0 control or surrogate is its own JSON string.
// eslint-disable-next-line no-control-regex -- C0 controls are exactly what JSON must escape
const PLAIN = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/** `text` as a JSON string: quoted as it is when nothing in it needs escaping (the common case). */
export const jsonString = (text: string): string =>
  PLAIN.test(text) ? `"${text}"` : JSON.stringify(text);
