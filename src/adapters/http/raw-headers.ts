/**
 * How many times a header occurs in a request's raw headers (`req.rawHeaders`), which keep every
 * occurrence where `req.headers` keeps one; `name` in lower case. Names of another length are
 * skipped without lower-casing them.
 */
export function countRawHeaders(raw: readonly string[], name: string): number {
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const field = raw[i]!;
    if (field.length === name.length && field.toLowerCase() === name) count++;
  }
  return count;
}
