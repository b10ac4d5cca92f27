import { isInteger, isSafeNumber, parse, stringify } from 'lossless-json';

// An integer a double cannot hold becomes a bigint; every other number stays a number.
const parseNumber = (text: string): number | bigint =>
  isInteger(text) && !isSafeNumber(text) ? BigInt(text) : Number(text);

// Any `id` is a bigint, whatever its size, so that ids have one type however large they are.
const reviveId = (key: string, value: unknown): unknown =>
  key === 'id' && typeof value === 'number' && Number.isSafeInteger(value) ? BigInt(value) : value;

/** JSON.parse without rounding: unsafe integers and every `id` become bigints. */
export const parseExactJson = (text: string): unknown => parse(text, reviveId, parseNumber);

/** JSON.stringify that writes bigints as exact JSON integers. */
export const stringifyExactJson = (value: unknown): string => stringify(value) ?? 'null';
