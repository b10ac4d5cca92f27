import { parse } from 'lossless-json';

const NUMBER = /^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?)([0-9]+))?$/;

/**
 * The exact integer a JSON number literal denotes (`12`, `12.0`, `1.2e1`), or undefined when it
 * denotes a fraction, lies far beyond int64 or is a negative zero (`-0`, `-0.0`): a path refuses
 * `-0` as not canonical, so a body (and an import line) does too, and no id reads differently in
 * the two. Never goes through a double.
 */
export function exactInteger(literal: string): bigint | undefined {
  const match = NUMBER.exec(literal);
  if (match === null) return undefined;
  const [, sign, whole = '', fraction = '', expSign, expDigits = '0'] = match;
  const allDigits = (whole + fraction).replace(/^0+/, '');
  if (allDigits === '') return sign === '-' ? undefined : 0n;
  const digits = allDigits.replace(/0+$/, '');
  // BigInt arithmetic: an exponent of any length is exact (a body holds at most 64 KiB of digits).
  const shift =
    BigInt(expSign === '-' ? `-${expDigits}` : expDigits) -
    BigInt(fraction.length - (allDigits.length - digits.length));
  if (shift < 0n || BigInt(digits.length) + shift > 20n) return undefined;
  const value = BigInt(digits + '0'.repeat(Number(shift)));
  return sign === '-' ? -value : value;
}

// Integers become bigints so that ids stay exact; any other number becomes NaN, which no field accepts.
const parseNumber = (literal: string): bigint | number => exactInteger(literal) ?? Number.NaN;

/**
 * The body nearly every create sends: `{"id":<integer>,"name":"...","tag":"..."}` (`tag` optional),
 * keys in that order, any JSON whitespace, an integer literal of up to 20 digits, strings without
 * escapes. It is read by this expression into exactly what the full parse gives for it (the
 * literal as a bigint, the strings as written, no tag key without a tag); any other body takes the
 * full parse. A unit test holds the two to the same result.
 * perf: 0.26 against 1.48 µs a parse; POST 1.06-1.19x per CPU-s (bench/README.md, "What the
 * hand-made fast paths save").
 */
const COMMON_PLANT =
  // eslint-disable-next-line no-control-regex -- C0 controls are exactly what a JSON string must escape
  /^[ \t\n\r]*\{[ \t\n\r]*"id"[ \t\n\r]*:[ \t\n\r]*(0|-?[1-9][0-9]{0,19})[ \t\n\r]*,[ \t\n\r]*"name"[ \t\n\r]*:[ \t\n\r]*"([^"\\\u0000-\u001f]*)"[ \t\n\r]*(?:,[ \t\n\r]*"tag"[ \t\n\r]*:[ \t\n\r]*"([^"\\\u0000-\u001f]*)"[ \t\n\r]*)?\}[ \t\n\r]*$/;

/**
 * A plant line as `plant-store export` writes it: `{"tenant":"...","id":<integer>,"name":"...",
 * "tag":"..."}` (`tag` optional), no whitespace, strings without escapes: read by this expression
 * into what the full parse gives; any other line takes the full parse.
 * perf: an import's own CPU 1.24 -> 0.69 s on 100k plants (bench/README.md, "Moving plants").
 */
const EXPORT_LINE =
  // eslint-disable-next-line no-control-regex -- C0 controls are exactly what a JSON string must escape
  /^\{"tenant":"([^"\\\u0000-\u001f]*)","id":(0|-?[1-9][0-9]{0,19}),"name":"([^"\\\u0000-\u001f]*)"(?:,"tag":"([^"\\\u0000-\u001f]*)")?\}$/;

/**
 * Parses JSON text exactly: integers become bigints (never a double), other numbers NaN. Throws
 * the parser's SyntaxError on text that is not JSON, a RangeError when nested too deeply. Used by
 * the HTTP body reader and the plant import, so that both read a plant alike.
 */
export function parseExactJson(text: string): unknown {
  const common = COMMON_PLANT.exec(text);
  if (common !== null) {
    const [, id, name, tag] = common;
    return tag === undefined ? { id: BigInt(id!), name } : { id: BigInt(id!), name, tag };
  }
  const line = EXPORT_LINE.exec(text);
  if (line !== null) {
    const [, tenant, id, name, tag] = line;
    return tag === undefined
      ? { tenant, id: BigInt(id!), name }
      : { tenant, id: BigInt(id!), name, tag };
  }
  return parse(text, null, parseNumber);
}
