import { ConfigError } from '../config/index.js';
import { EXIT } from './exit-codes.js';
import { parseOptions } from './parse-options.js';
import { sharedStorageConfig } from './shared-storage.js';
import type { exportCommand } from './transfer-commands.js';

export const CHECK_HELP = `Usage: plant-store check

Reads the whole embedded store (lmdb, the default storage) in one read transaction, while servers
go on using it, and says what is wrong, one line each: pages LMDB's own checks refuse, plant
entries it cannot read, tenants whose plants disagree with their counts. export and backup make
the same check first and refuse a store that fails it. A store that fails: restore a backup or an
export (docs/operations.md, "Backing up a running instance on the default storage").

Options:
  -h, --help  show this help

Exit codes: 0 the store is whole, 1 something is wrong (or the storage failed).`;

/** `plant-store check`, run as `export` and `backup` are (run-cli.ts's TRANSFERS). */
export const checkCommand = async (
  ...[args, env, io, open]: Parameters<typeof exportCommand>
): Promise<number> => {
  parseOptions({ args, options: {} });
  const config = sharedStorageConfig(env, 'plants');
  if (config.storage.kind !== 'lmdb') {
    throw new ConfigError(
      `check reads the embedded store (lmdb) only; PLANT_STORE_STORAGE=${config.storage.kind} has its own tools`,
    );
  }
  const store = await open(config);
  try {
    const report = await store.check!();
    for (const problem of report.problems) io.err(`plant-store: ${problem}`);
    const found = `${report.plants} plants in ${report.tenants} tenants`;
    if (report.problems.length > 0) {
      io.err(`plant-store: ${config.storage.dataDir} is damaged (read ${found})`);
      return EXIT.failure;
    }
    io.err(`plant-store: ${config.storage.dataDir} checked: ${found}, nothing wrong`);
    return EXIT.ok;
  } finally {
    await store.close();
  }
};
