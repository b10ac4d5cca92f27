import { inspect } from 'node:util';
import { expect } from 'chai';

type ErrorType<E> = abstract new (...args: never[]) => E;

/** The reason `operation` rejects with, checked to be a `type` if given; fails if it fulfils. */
export async function rejection<E = unknown>(
  operation: Promise<unknown>,
  type?: ErrorType<E>,
): Promise<E> {
  let value: unknown;
  try {
    value = await operation;
  } catch (error) {
    return checked(error, type);
  }
  return expect.fail(`expected a rejection, got ${inspect(value)}`);
}

/** What `call` throws, checked to be a `type` if given; fails if it returns. */
export function thrown<E = unknown>(call: () => unknown, type?: ErrorType<E>): E {
  let value: unknown;
  try {
    value = call();
  } catch (error) {
    return checked(error, type);
  }
  return expect.fail(`expected a throw, got ${inspect(value)}`);
}

function checked<E>(error: unknown, type: ErrorType<E> | undefined): E {
  if (type !== undefined) expect(error, inspect(error)).to.be.instanceOf(type);
  return error as E;
}
