import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMongoServer, type MongoServer } from './mongo-server.js';
import { REDIS_DEPLOYMENTS, type RedisUnderTest } from './redis-server.js';
import { suiteServer } from './server-requirement.js';

/** The servers an adapter can run on; each row of a table gets one of its own, for its block. */
export interface Servers {
  readonly 'in process': { readonly directory: string };
  readonly Redis: RedisUnderTest;
  readonly 'Redis Cluster': RedisUnderTest;
  readonly MongoDB: MongoServer;
}

/** One adapter of a port: its name in the run, what it runs on, and how a suite opens it there. */
export type AdapterRow<T> = {
  [K in keyof Servers]: { readonly name: string; readonly on: K; open(server: Servers[K]): T };
}[keyof Servers];

const [[, useRedis], [, startRedisCluster]] = REDIS_DEPLOYMENTS;

/** Each server's provider and closer, as suiteServer takes them (a reason string when absent). */
const PROVIDERS: {
  [K in Exclude<keyof Servers, 'in process'>]: [
    () => Promise<Servers[K] | string>,
    (server: Servers[K]) => Promise<unknown>,
  ];
} = {
  Redis: [useRedis, (server) => server.close()],
  'Redis Cluster': [startRedisCluster, (server) => server.close()],
  MongoDB: [startMongoServer, (server) => server.dispose()],
};

// `npm run test:fast` runs the in-process rows only; the others show as pending, never vanish.
// Under CI=true every row runs: a server row is never left out there.
const IN_PROCESS_ONLY =
  process.env.PLANT_STORE_TEST_SERVERS === 'none' && process.env.CI !== 'true';

/**
 * Describes the port's suite once per row, each in a block named after the adapter, with the
 * row's server started before the block and stopped after it: absent, the block skips with the
 * reason printed, and fails under CI=true (serverMissing). In-process rows get a temporary
 * directory of their own for their files.
 */
export function describeAdapters<T>(
  rows: readonly AdapterRow<T>[],
  suite: (name: string, open: () => T) => void,
): void {
  for (const row of rows) {
    if (row.on === 'in process') {
      describe(row.name, () => {
        let directory: string | undefined;
        after(() => directory !== undefined && rmSync(directory, { recursive: true, force: true }));
        suite(row.name, () =>
          row.open({ directory: (directory ??= mkdtempSync(join(tmpdir(), 'plant-store-port-'))) }),
        );
      });
    } else if (IN_PROCESS_ONLY) {
      describe.skip(`${row.name} (needs ${row.on}; PLANT_STORE_TEST_SERVERS=none)`, () =>
        suite(row.name, () => row.open(undefined as never)));
    } else {
      describe(row.name, () => {
        const [provide, close] = PROVIDERS[row.on] as [
          () => Promise<object | string>,
          (server: object) => Promise<unknown>,
        ];
        const server = suiteServer(row.on, provide, close);
        suite(row.name, () => row.open(server() as never));
      });
    }
  }
}
