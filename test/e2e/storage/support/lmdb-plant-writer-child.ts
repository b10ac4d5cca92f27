// Writes plants in the store of argv[2] as its stdin says, one JSON line an operation
// ({"op":"insert"|"delete"|"import","id":"3","name":"x","overwrite":true}), tenant `pages`;
// answers each line with `done` once the write resolved (acknowledged). Says `ready` once open.
import { createInterface } from 'node:readline';
import { openLmdbStorage } from '../../../../src/adapters/storage/lmdb/open-lmdb-storage.js';

interface Operation {
  op: 'insert' | 'delete' | 'import';
  id: string;
  name?: string;
  overwrite?: boolean;
}

const storage = await openLmdbStorage({ dataDir: process.argv[2]! });
process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) {
  const { op, id, name = `plant ${id}`, overwrite = false } = JSON.parse(line) as Operation;
  const plant = { id: BigInt(id), name };
  if (op === 'insert') await storage.plants.insert('pages', plant);
  else if (op === 'delete') await storage.plants.delete('pages', plant.id);
  else await storage.plants.importBatch('pages', [plant], overwrite);
  process.stdout.write('done\n');
}
await storage.close();
