/**
 * A storage that cannot be opened, in one line: where (never credentials), the variable that chose
 * it, what is wrong: `Redis at 10.0.0.5:6379 (REDIS_URL) is not ready after 2 s (connection refused)`.
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
