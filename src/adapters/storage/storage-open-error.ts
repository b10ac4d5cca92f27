/**
 * A storage that cannot be opened, in one line: where it is (hosts or path, never credentials), the
 * variable that chose it, and what is wrong, e.g. `Redis at 10.0.0.5:6379 (REDIS_URL) is not ready
 * after 2000 ms (connect ECONNREFUSED)`. Every technology reports a failed start this way.
 */
export class StorageOpenError extends Error {
  override name = 'StorageOpenError';

  constructor(
    where: string,
    readonly variable: string,
    problem: string,
    options?: ErrorOptions,
  ) {
    super(`${where} (${variable}) ${problem}`, options);
  }
}
