import type { Logger } from '../../../ports/logger.js';
import { TAG_INDEX_FROM, type LmdbDatabases } from './lmdb-environment.js';
import { idOf, TAG_INDEX } from './lmdb-keys.js';
import { tagEntry, type PlantValue } from './lmdb-plant-store.js';
import type { LmdbWriter } from './lmdb-writer.js';

/** Plants read per write transaction: some milliseconds of the write lock each. */
const BATCH = 10_000;

const describe = (key: string): string => {
  if (key === '') return 'from the start';
  const bytes = Buffer.from(key, 'hex');
  const tenant = bytes.toString('utf8', 2, bytes.length - 8);
  return `after tenant ${JSON.stringify(tenant)} plant ${idOf(bytes)}`;
};

/**
 * Builds the tag index of the plants a version without it stored (format 1), when `meta` holds
 * TAG_INDEX_FROM: in write transactions of `batch` plants, each adding the entries its tagged
 * plants lack and moving TAG_INDEX_FROM past them, removed with the last. Resumable (an abort or a
 * crash leaves the mark where the last commit put it), shared (processes opening together take
 * turns at the batches) and idempotent (writes since the upgrade index their plants themselves).
 * Costs one read of `meta` once built. Rejects with the signal's reason when it is aborted.
 */
export async function buildTagIndex(
  dbs: LmdbDatabases,
  writer: Pick<LmdbWriter, 'write'>,
  options: { logger?: Logger | undefined; signal?: AbortSignal | undefined; batch?: number } = {},
): Promise<void> {
  const { logger, signal, batch = BATCH } = options;
  const { plants, meta } = dbs;
  const from = meta.get(TAG_INDEX_FROM) as string | undefined;
  if (from === undefined) return;
  const fields = { storage: 'lmdb', tagIndex: true };
  logger?.info(fields, `building the tag index of the plants stored before it, ${describe(from)}`);
  const began = Date.now();
  let read = 0;
  let added = 0;
  for (let done = false; !done;) {
    if (signal?.aborted) {
      const at = meta.get(TAG_INDEX_FROM) as string | undefined;
      logger?.warn(fields, `tag index build stopped ${describe(at ?? '')}; the next start goes on`);
      throw signal.reason;
    }
    done = await writer.write(() => {
      const at = meta.get(TAG_INDEX_FROM) as string | undefined;
      if (at === undefined) return true; // another process finished it
      const after = at === '' ? {} : { start: Buffer.from(at, 'hex'), exclusiveStart: true };
      let last: Buffer | undefined;
      let count = 0;
      for (const { key, value } of plants.getRange({ ...after, end: TAG_INDEX, limit: batch })) {
        last = key;
        count++;
        const [name, tag] = value as PlantValue;
        if (tag === undefined) continue;
        const entry = tagEntry(key.subarray(0, key.length - 8), idOf(key), tag);
        if (plants.doesExist(entry)) continue;
        void plants.put(entry, name);
        added++;
      }
      read += count;
      if (count < batch) void meta.remove(TAG_INDEX_FROM);
      else void meta.put(TAG_INDEX_FROM, last!.toString('hex'));
      return count < batch;
    });
  }
  logger?.info(
    { ...fields, read, added },
    `the tag index is built: ${read} plants read, ${added} entries added in ${Date.now() - began} ms`,
  );
}
