import { PlantStoreHttpError, PlantStoreResponseError, type PlantStoreError } from './errors.js';
import { parseExactJson } from './exact-json.js';
import { parseRetryAfter } from './retry-policy.js';
import type { Plant } from './types.js';

/** An answer with its whole body, read within the call's signal. */
export interface Answer {
  response: Response;
  text: string;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const isPlant = (value: unknown): value is Plant =>
  isObject(value) &&
  typeof value.name === 'string' &&
  (value.tag === undefined || typeof value.tag === 'string');

const isErrorBody = (value: unknown): value is { error: number; message: string } =>
  isObject(value) && Number.isInteger(value.error) && typeof value.message === 'string';

/** The body as exact JSON, or undefined when it is not JSON. */
export function readJson(text: string): unknown {
  try {
    return parseExactJson(text);
  } catch {
    return undefined;
  }
}

/** The answer is not what the contract says `method url` answers. */
export function unexpectedAnswer(
  request: string,
  { response, text }: Answer,
  expected: string,
): PlantStoreResponseError {
  return new PlantStoreResponseError(
    response.status,
    `${request} answered ${response.status} without ${expected}; is baseUrl the plant store?`,
    text.slice(0, 200),
  );
}

/** The typed error of a failed answer; `retried` holds the statuses of the attempts before it. */
export function answerError(
  request: string,
  answer: Answer,
  retried: readonly number[],
): PlantStoreError {
  const body = readJson(answer.text);
  if (!isErrorBody(body)) return unexpectedAnswer(request, answer, 'an Error body');
  const { status, headers } = answer.response;
  const retryAfterMs = parseRetryAfter(headers.get('Retry-After'));
  return new PlantStoreHttpError(
    status,
    body.error,
    body.message,
    retryAfterMs,
    retried.length + 1,
    [...retried],
  );
}
