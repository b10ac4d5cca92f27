import type { AnyBulkWriteOperation, Document } from 'mongodb';

/**
 * Updates one command carries at most on FerretDB. Its v1 (SQLite) keeps a pooled connection for
 * each update of a command until the command ends, out of a pool of 100 for the whole server: the
 * 100th update of one command waits forever, and so does everything else on that server.
 */
export const FERRETDB_UPDATES = 4;

/**
 * The bulkWrites to send for `operations` (none when empty), each with the index of its first
 * operation: one on MongoDB; on FerretDB as many as it takes for none to carry more than
 * FERRETDB_UPDATES updates (inserts hold nothing, so a chunk ends at an update only).
 */
export function bulkWriteChunks<T extends Document>(
  operations: AnyBulkWriteOperation<T>[],
  ferretdb: boolean,
): { start: number; chunk: AnyBulkWriteOperation<T>[] }[] {
  const most = ferretdb ? FERRETDB_UPDATES : Infinity;
  const chunks: { start: number; chunk: AnyBulkWriteOperation<T>[] }[] = [];
  let start = 0;
  while (start < operations.length) {
    let end = start;
    for (let updates = 0; end < operations.length; end++) {
      if ('updateOne' in operations[end]! && ++updates > most) break;
    }
    chunks.push({ start, chunk: operations.slice(start, end) });
    start = end;
  }
  return chunks;
}
