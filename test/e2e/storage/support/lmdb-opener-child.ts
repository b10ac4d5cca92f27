// Opens the store of argv[2] and closes it again, as a command run beside a server does.
import { openLmdbStorage } from '../../../../src/adapters/storage/lmdb/open-lmdb-storage.js';

const storage = await openLmdbStorage({ dataDir: process.argv[2]! });
await storage.plants.tenants(undefined, 1);
await storage.close();
