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
 * A plant line as `plant-store export` writes it: `{"tenant":"...","id":<integer>,"name":"...",
 * "tag":"..."}` (`tag` optional), no whitespace, strings without escapes: read by this expression
 * into what the full parse gives; any other line takes the full parse.
 * perf: 8.5k against 36.4k instructions a line (callgrind); an import's own CPU 1.24 -> 0.69 s
 * on 100k plants (bench/README.md, "Moving plants"). Create bodies take the full parse: the same
 * shortcut saved 24.8k of a POST's 933k instructions (2.7%), too little to keep.
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
  const line = EXPORT_LINE.exec(text);
  if (line !== null) {
    const [, tenant, id, name, tag] = line;
    return tag === undefined
      ? { tenant, id: BigInt(id!), name }
      : { tenant, id: BigInt(id!), name, tag };
  }
  return parse(text, null, parseNumber);
}
