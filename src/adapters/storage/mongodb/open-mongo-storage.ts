import {
  MongoServerError,
  type MongoClient,
  type ServerHeartbeatFailedEvent,
  type TopologyDescriptionChangedEvent,
} from 'mongodb';
import type { Logger } from '../../../ports/logger.js';
import { DEFAULT_MAX_PLANTS_PER_TENANT } from '../../../domain/plant-quota.js';
import { MONGO_LIMITS_COLLECTION, type OpenedStorage } from '../../limits/limiter-store.js';
import { ConfigError } from '../../config-error.js';
import { reportBoth } from '../outage-reporter.js';
import type { StorageDeps, StorageOptionsOf } from '../storage-options.js';
import { networkReason, StorageNotReady, waitForStorage } from '../startup.js';
import { StorageOpenError } from '../storage-open-error.js';
import { createMongoClient, databaseName, isOutage } from './mongo-client.js';
import {
  COLLECTION,
  COUNT_COLLECTION,
  INDEX_NAME,
  MongoPlantStore,
  PlantCounts,
  PROBE_COLLECTION,
  TAG_INDEX,
  TAG_KEYS,
  type PlantDocument,
} from './mongo-plant-store.js';
import { MongoTokenStore, TOKEN_COLLECTION } from './mongo-token-store.js';
import { MongoWebhookOutbox } from './mongo-webhook-outbox.js';
import { MongoWebhookSubscriptions, WEBHOOK_COLLECTION } from './mongo-webhook-subscriptions.js';

/**
 * Prepares the database (indexes) on a start-up client with the bound's deadlines, retrying what
 * may heal, then connects the stores' client. Rejects with a StorageOpenError naming the hosts: at
 * once when the URL, the credentials or an index cannot work (without its unique index a store
 * could accept duplicates), else after the bound.
 */
export async function openMongoStorage(
  config: Omit<StorageOptionsOf<'mongodb'>, 'kind'>,
  deps: StorageDeps = {},
  webhookCacheMs = 1000,
): Promise<OpenedStorage> {
  const timeoutMs = deps.startupTimeoutMs ?? 30_000;
  const client = createMongoClient(config.url);
  // Start-up work waits up to the whole bound, not the requests' deadlines: a handshake on a busy
  // machine or a fresh database's first collection may take seconds, an index build minutes.
  const startup = createMongoClient(config.url, {
    serverSelectionTimeoutMS: timeoutMs,
    connectTimeoutMS: Math.min(10_000, timeoutMs),
    socketTimeoutMS: timeoutMs,
    waitQueueTimeoutMS: timeoutMs,
    maxPoolSize: 1,
  });
  const stop = (): void => void startup.close().catch(() => {});
  deps.signal?.addEventListener('abort', stop, { once: true });
  const where = `MongoDB at ${client.options.hosts.map(String).join(',')}`;
  const name = databaseName(config.url);
  let prepared = false;
  try {
    await waitForStorage(
      async ({ waiting }) => {
        // The driver retries connecting within server selection; say why it waits meanwhile.
        const onFailed = ({ failure }: ServerHeartbeatFailedEvent): void =>
          waiting(networkReason(failure.message) ?? 'unreachable');
        startup.on('serverHeartbeatFailed', onFailed);
        try {
          if (!prepared) await prepare(startup, name, deps.logger);
          prepared = true;
          // The stores' client, connected before the service says it is ready.
          await client.connect();
          await client.db(name).command({ ping: 1 });
        } catch (error) {
          throw classify(error, where);
        } finally {
          startup.off('serverHeartbeatFailed', onFailed);
        }
      },
      { where, variable: 'MONGODB_URL', timeoutMs, logger: deps.logger, signal: deps.signal },
    );
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  } finally {
    deps.signal?.removeEventListener('abort', stop);
    await startup.close().catch(() => {});
  }
  const { outages } = deps;
  // Losing and regaining the servers, as the driver's monitoring sees it.
  client.on('topologyDescriptionChanged', ({ newDescription }: TopologyDescriptionChangedEvent) => {
    if (outages === undefined) return;
    if (newDescription.hasKnownServers) return reportBoth(outages, where);
    const error = [...newDescription.servers.values()].find((server) => server.error)?.error;
    reportBoth(outages, where, networkReason(error?.message ?? '') ?? 'unreachable');
  });
  const database = client.db(name);
  const plants = database.collection<PlantDocument>(COLLECTION);
  // FerretDB names itself in buildInfo.
  const info: { ferretdbVersion?: unknown } = await client
    .db('admin')
    .command({ buildInfo: 1 })
    .catch(() => ({}));
  const ferretdb = info.ferretdbVersion !== undefined;
  const max = config.maxPlantsPerTenant ?? DEFAULT_MAX_PLANTS_PER_TENANT;
  // No counts on FerretDB: its v1 updates without atomicity, so a count would not hold the quota.
  const counts =
    max === 0 || ferretdb ? undefined : new PlantCounts(database.collection(COUNT_COLLECTION), max);
  const subscriptions = new MongoWebhookSubscriptions(
    database.collection(WEBHOOK_COLLECTION),
    webhookCacheMs,
  );
  return {
    plants: new MongoPlantStore(
      client,
      plants,
      counts,
      database.collection(PROBE_COLLECTION),
      MongoWebhookOutbox.entries(subscriptions),
      ferretdb,
    ),
    tokens: new MongoTokenStore(database.collection(TOKEN_COLLECTION)),
    webhooks: subscriptions,
    outbox: new MongoWebhookOutbox(plants, ferretdb),
    limiterStore: { kind: 'mongodb', client, database: name, ferretdb },
    close: () => client.close(),
  };
}

const NON_UNIQUE = new Error(
  `has a non-unique index on (tenant, id) in collection ${COLLECTION}; drop it so that ${INDEX_NAME} can be built unique`,
);
const keysOf = ({ key = {} }: { key?: object }): string =>
  Object.entries(key)
    .map(([field, order]) => `${field}:${Number(order)}`)
    .join();

/** One attempt at the start-up work: connect (first, so the notice means the index), then indexes. */
async function prepare(client: MongoClient, name: string, logger?: Logger): Promise<void> {
  await client.connect();
  const database = client.db(name);
  // An index taking longer than this once connected is being built: the log says so.
  const notice = setTimeout(() => {
    logger?.info(
      { collection: COLLECTION },
      'an index build is in progress; start-up waits for it (up to PLANT_STORE_STARTUP_TIMEOUT)',
    );
  }, 2000);
  try {
    const plants = database.collection(COLLECTION);
    await plants.createIndex({ tenant: 1, id: 1 }, { unique: true, name: INDEX_NAME });
    // FerretDB v1 answers ok to createIndex when a non-unique index of that name exists; MongoDB
    // refuses (code 85/86). Checking the result keeps both from accepting duplicates.
    const indexes = await plants.listIndexes().toArray();
    if (!indexes.some((index) => index.unique === true && keysOf(index) === 'tenant:1,id:1'))
      throw NON_UNIQUE;
    if (!indexes.some((index) => keysOf(index) === 'tenant:1,tag:1,id:1')) {
      // Plants have always held their tag: the server builds the index from them (an interrupted
      // build is resumed, or redone at the next start) and keeps it in each plant's write from then on.
      const count = await plants.estimatedDocumentCount();
      const fields = { collection: COLLECTION, index: TAG_INDEX, plants: count };
      // A fresh database has nothing to index: no log.
      if (count > 0) logger?.info(fields, 'indexing the stored plants by tag (once)');
      await plants.createIndex(TAG_KEYS, { name: TAG_INDEX });
      if (count > 0) logger?.info(fields, 'stored plants indexed by tag');
    }
    // The outbox polls plants by `due`; subscriptions are listed by tenant (names the driver's).
    await database.collection(TOKEN_COLLECTION).createIndex({ tenant: 1, createdAt: 1 });
    await plants.createIndex({ due: 1 });
    await database.collection(WEBHOOK_COLLECTION).createIndex({ tenant: 1 });
    // The indexes RateLimiterMongo would make (only logging when it cannot): one count per key, and
    // expiry of ended windows, which FerretDB v1 refuses (NotImplemented, docs/storage-mongodb.md).
    const limits = database.collection(MONGO_LIMITS_COLLECTION);
    await limits.createIndex({ key: 1 }, { unique: true });
    await limits.createIndex({ expire: -1 }, { expireAfterSeconds: 0 }).catch((error: unknown) => {
      if (!(error instanceof MongoServerError && error.code === 238)) throw error;
    });
  } finally {
    clearTimeout(notice);
  }
}

/** A failed attempt: StorageNotReady when waiting may help, else a final StorageOpenError. */
function classify(error: unknown, where: string): Error {
  if (error instanceof ConfigError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof MongoServerError ? error.code : undefined;
  const final = (problem: string) =>
    new StorageOpenError(where, 'MONGODB_URL', problem, { cause: error });
  // AuthenticationFailed; a non-unique index (85/86); IndexBuildAborted, IndexBuildAlreadyInProgress.
  if (code === 18 || /Authentication failed/i.test(message)) return final('refused authentication');
  if (error === NON_UNIQUE || code === 85 || code === 86) return final(NON_UNIQUE.message);
  if (code === 276 || code === 285) {
    return new StorageNotReady('an index build is in progress', { cause: error });
  }
  if (isOutage(error)) {
    return new StorageNotReady(networkReason(message) ?? 'unreachable', { cause: error });
  }
  return final(`cannot be used: ${message}`);
}
