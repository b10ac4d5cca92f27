/**
 * How many times a header occurs in a request's raw headers (`req.rawHeaders`), which keep every
 * occurrence where `req.headers` keeps one; `name` in lower case.
 */
export const countRawHeaders = (raw: readonly string[], name: string): number =>
  raw.filter((field, i) => i % 2 === 0 && field.toLowerCase() === name).length;
