/** A header line as `plant-store export` writes it, at a fixed time. */
export const HEADER =
  '{"format":"plant-store-export","version":1,"takenAt":"2026-01-01T00:00:00.000Z","tenants":null}';

/** The end line of an export of `plants` plants. */
export const end = (plants: number) =>
  `{"format":"plant-store-export","end":true,"plants":${plants}}`;

/** The lines as a file: each ends with a newline. */
export const file = (...lines: string[]) => lines.map((line) => `${line}\n`).join('');

/** The lines of an export but its header (which holds the time it was taken). */
export const body = (text: string) => text.split('\n').slice(1);

/** An export of `count` plants of one tenant, ids 1..count. */
export const bigExport = (tenant: string, count: number): string => {
  const lines = [HEADER];
  for (let id = 1; id <= count; id++) {
    lines.push(`{"tenant":"${tenant}","id":${id},"name":"plant ${id}"}`);
  }
  lines.push(end(count));
  return `${lines.join('\n')}\n`;
};
