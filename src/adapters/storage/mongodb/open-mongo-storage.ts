import {
  MongoServerError,
  type Collection,
  type MongoClient,
  type ServerHeartbeatFailedEvent,
  type TopologyDescriptionChangedEvent,
} from 'mongodb';
import type { Logger } from '../../../ports/logger.js';
import { DEFAULT_MAX_PLANTS_PER_TENANT } from '../../../domain/plant-quota.js';
import { MONGO_LIMITS_COLLECTION, type OpenedStorage } from '../../limits/limiter-store.js';
import { ConfigError } from '../../config-error.js';
import { reportBoth, type OutageReporters } from '../outage-reporter.js';
import type { StorageDeps, StorageOptionsOf } from '../storage-options.js';
import { networkReason, StorageNotReady, waitForStorage } from '../startup.js';
import { StorageOpenError } from '../storage-open-error.js';
import { createMongoClient, databaseName, startupOptions } from './mongo-client.js';
import { isOutage } from './mongo-errors.js';
import {
  COLLECTION,
  COUNT_COLLECTION,
  INDEX_NAME,
  MongoPlantStore,
  PlantCounts,
  PROBE_COLLECTION,
  TAG_INDEX,
  TAG_KEYS,
  type CountDocument,
  type PlantDocument,
  type ProbeDocument,
} from './mongo-plant-store.js';
import { MongoTokenStore, TOKEN_COLLECTION, type TokenDocument } from './mongo-token-store.js';
import { DUE_INDEX, MongoWebhookOutbox } from './mongo-webhook-outbox.js';
import { MongoWebhookSubscriptions, WEBHOOK_COLLECTION } from './mongo-webhook-subscriptions.js';

/**
 * Prepares the database (collections, indexes) on a start-up client with the start-up bound's
 * deadlines, retrying what may heal; then connects the stores' client. Rejects with a
 * StorageOpenError naming the hosts: at once when the URL, the credentials or an index cannot work
 * (without its unique index a store could accept duplicates), else after the bound.
 */
export async function openMongoStorage(
  config: Omit<StorageOptionsOf<'mongodb'>, 'kind'>,
  deps: StorageDeps = {},
  webhookCacheMs = 1000,
): Promise<OpenedStorage> {
  const timeoutMs = deps.startupTimeoutMs ?? DEFAULT_STARTUP_MS;
  const client = createMongoClient(config.url);
  const startup = createMongoClient(config.url, startupOptions(timeoutMs));
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
  if (deps.outages) watchTopology(client, where, deps.outages);
  const database = client.db(name);
  const plants = database.collection<PlantDocument>(COLLECTION);
  const ferretdb = await isFerretDb(client);
  const max = config.maxPlantsPerTenant ?? DEFAULT_MAX_PLANTS_PER_TENANT;
  // No counts on FerretDB: its v1 updates without atomicity, so a count would not hold the quota.
  const counts =
    max === 0 || ferretdb
      ? undefined
      : new PlantCounts(database.collection<CountDocument>(COUNT_COLLECTION), max);
  const subscriptions = new MongoWebhookSubscriptions(
    undefined,
    database.collection<{ _id: string }>(WEBHOOK_COLLECTION),
    webhookCacheMs,
  );
  return {
    plants: new MongoPlantStore(
      client,
      plants,
      counts,
      database.collection<ProbeDocument>(PROBE_COLLECTION),
      MongoWebhookOutbox.entries(subscriptions),
      ferretdb,
    ),
    tokens: new MongoTokenStore(database.collection<TokenDocument>(TOKEN_COLLECTION)),
    webhooks: subscriptions,
    outbox: new MongoWebhookOutbox(plants, ferretdb),
    limiterStore: { kind: 'mongodb', client, database: name, ferretdb },
    close: () => client.close(),
  };
}

/** Reports losing and regaining the servers as the driver's monitoring sees it. */
function watchTopology(client: MongoClient, where: string, outages: OutageReporters): void {
  client.on('topologyDescriptionChanged', ({ newDescription }: TopologyDescriptionChangedEvent) => {
    if (newDescription.hasKnownServers) return reportBoth(outages, where);
    const error = [...newDescription.servers.values()].find((server) => server.error)?.error;
    reportBoth(outages, where, networkReason(error?.message ?? '') ?? 'unreachable');
  });
}

const DEFAULT_STARTUP_MS = 30_000;
// An index taking longer than this once connected is being built: the log says so.
const INDEX_NOTICE_MS = 2000;

/** One attempt at the start-up work: connect (first, so the notice means the index), then indexes. */
async function prepare(client: MongoClient, name: string, logger?: Logger): Promise<void> {
  await client.connect();
  const database = client.db(name);
  const notice = setTimeout(() => {
    logger?.info(
      { collection: COLLECTION },
      'an index build is in progress; start-up waits for it (up to PLANT_STORE_STARTUP_TIMEOUT)',
    );
  }, INDEX_NOTICE_MS);
  try {
    await ensurePlantIndexes(database.collection<PlantDocument>(COLLECTION), logger);
    await database
      .collection<TokenDocument>(TOKEN_COLLECTION)
      .createIndex({ tenant: 1, createdAt: 1 }, { name: 'tenant_1_createdAt_1' });
    // The outbox polls plants by `due`; subscriptions are listed by tenant.
    await database.collection(COLLECTION).createIndex({ due: 1 }, { name: DUE_INDEX });
    await database.collection(WEBHOOK_COLLECTION).createIndex({ tenant: 1 }, { name: 'tenant_1' });
    // The indexes RateLimiterMongo would make (only logging when it cannot): one count per key, and
    // expiry of ended windows, which FerretDB v1 refuses (docs/storage-mongodb.md).
    const limits = database.collection(MONGO_LIMITS_COLLECTION);
    await limits.createIndex({ key: 1 }, { unique: true, name: 'key_1' });
    await limits
      .createIndex({ expire: -1 }, { expireAfterSeconds: 0, name: 'expire_-1' })
      .catch((error: unknown) => {
        if (!(error instanceof MongoServerError && error.code === NOT_IMPLEMENTED)) throw error;
      });
  } finally {
    clearTimeout(notice);
  }
}

const NOT_IMPLEMENTED = 238;

/** Whether the server is FerretDB, which names itself in buildInfo. */
async function isFerretDb(client: MongoClient): Promise<boolean> {
  const info = await client
    .db('admin')
    .command({ buildInfo: 1 })
    .catch(() => ({}));
  return (info as { ferretdbVersion?: unknown }).ferretdbVersion !== undefined;
}

const NON_UNIQUE = new Error(
  `has a non-unique index on (tenant, id) in collection ${COLLECTION}; drop it so that ${INDEX_NAME} can be built unique`,
);

const keysOf = ({ key = {} }: { key?: object }): string =>
  Object.entries(key)
    .map(([field, order]) => `${field}:${Number(order)}`)
    .join();

async function ensurePlantIndexes(
  plants: Collection<PlantDocument>,
  logger?: Logger,
): Promise<void> {
  await plants.createIndex({ tenant: 1, id: 1 }, { unique: true, name: INDEX_NAME });
  // FerretDB v1 answers ok to createIndex when a non-unique index of that name exists; MongoDB
  // refuses (code 85/86). Checking the result keeps both from accepting duplicates.
  const indexes = await plants.listIndexes().toArray();
  if (!indexes.some((index) => index.unique === true && keysOf(index) === 'tenant:1,id:1'))
    throw NON_UNIQUE;
  if (indexes.some((index) => keysOf(index) === 'tenant:1,tag:1,id:1')) return;
  // Plants have always held their tag: the server builds the index from them (an interrupted build
  // is resumed, or redone at the next start) and keeps it in each plant's write from then on.
  const fields = {
    collection: COLLECTION,
    index: TAG_INDEX,
    plants: await plants.estimatedDocumentCount(),
  };
  // A fresh database has nothing to index: no log.
  if (fields.plants > 0) logger?.info(fields, 'indexing the stored plants by tag (once)');
  await plants.createIndex(TAG_KEYS, { name: TAG_INDEX });
  if (fields.plants > 0) logger?.info(fields, 'stored plants indexed by tag');
}

// IndexBuildAborted, IndexBuildAlreadyInProgress: a start-up that may succeed later.
const INDEX_BUILD_CODES = new Set([276, 285]);
const AUTHENTICATION_FAILED = 18;

/** A failed attempt: StorageNotReady when waiting may help, else a final StorageOpenError. */
function classify(error: unknown, where: string): Error {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof ConfigError) return error;
  const code = error instanceof MongoServerError ? error.code : undefined;
  if (code === AUTHENTICATION_FAILED || /Authentication failed/i.test(message)) {
    return new StorageOpenError(where, 'MONGODB_URL', 'refused authentication', { cause: error });
  }
  if (error === NON_UNIQUE || code === 85 || code === 86) {
    return new StorageOpenError(where, 'MONGODB_URL', NON_UNIQUE.message, { cause: error });
  }
  if (typeof code === 'number' && INDEX_BUILD_CODES.has(code)) {
    return new StorageNotReady('an index build is in progress', { cause: error });
  }
  if (isOutage(error)) {
    return new StorageNotReady(networkReason(message) ?? 'unreachable', { cause: error });
  }
  return new StorageOpenError(where, 'MONGODB_URL', `cannot be used: ${message}`, { cause: error });
}
