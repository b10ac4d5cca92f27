// Opens the store of argv[2] and closes it again, as a command run beside a server does; argv[3]
// times in a row (once unless given).
import { openLmdbStorage } from '../../../../src/adapters/storage/lmdb/open-lmdb-storage.js';

for (let time = Number(process.argv[3] ?? 1); time > 0; time--) {
  const storage = await openLmdbStorage({ dataDir: process.argv[2]! });
  await storage.plants.tenants(undefined, 1);
  await storage.close();
}
