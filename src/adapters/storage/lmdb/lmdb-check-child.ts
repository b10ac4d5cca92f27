import { openEnvironment } from './lmdb-environment.js';
import { checkIntegrity } from './lmdb-integrity.js';

// Run by checkInChild (lmdb-integrity.ts) with the data directory: LMDB aborts the process on
// some damaged pages (its assertions), so the walk runs here, and only its report goes back.
const dbs = openEnvironment(process.argv[2]!);
process.send!(checkIntegrity(dbs), () => void dbs.root.close().finally(() => process.exit(0)));
