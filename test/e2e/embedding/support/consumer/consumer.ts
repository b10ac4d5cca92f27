// A program of a consumer of the packed package: the client, the core and the main entry, type-checked
// with skipLibCheck: false and run. Its output is checked by package-consumer.test.ts.
import { once } from 'node:events';
import { createServer } from 'node:http';
import {
  buildContainer,
  buildService,
  createHttpApp,
  loadConfig,
  resolveService,
  StaticTokenVerifier,
  TYPES,
  type Container,
  type HttpApp,
} from 'plant-store';
import { ERROR_CODES, PlantStoreClient, PlantStoreHttpError, type Plant } from 'plant-store/client';
import { MemoryPlantStore, PlantService, type Caller, type NewPlant } from 'plant-store/core';
import type * as Root from 'plant-store';
import type * as Core from 'plant-store/core';
import { ExamplePlantStore } from './custom-plant-store.js';

const token = 'consumer-token-0123456789';
const store = new MemoryPlantStore();
const plants = new PlantService(store);
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const tokens = new StaticTokenVerifier([
  { token, tenant: 'acme', scopes: ['plants:read', 'plants:write'] },
]);
const app: HttpApp = createHttpApp({
  plants,
  tokenVerifier: tokens,
  readiness: [{ name: 'plants', ping: () => store.ping() }],
  logger: silent,
});
const server = createServer(app.callback()).listen(0, '127.0.0.1');
await once(server, 'listening');
const { port } = server.address() as { port: number };

// Over HTTP, through the bundled client: the id stays exact.
const client = new PlantStoreClient({ baseUrl: `http://127.0.0.1:${port}`, token });
const aroid: string | undefined = 'aroid' as string | undefined;
const created: Plant = await client.createPlant({
  id: 9007199254740993n,
  name: 'Monstera',
  tag: aroid,
});
let duplicate: number | undefined;
try {
  await client.createPlant({ id: 9007199254740993n, name: 'again' });
} catch (error) {
  if (error instanceof PlantStoreHttpError && error.code === ERROR_CODES.DUPLICATE_PLANT) {
    duplicate = error.status;
  }
}

// The core, embedded in the same process, on the same store.
const caller: Caller = { tenant: 'acme', scopes: ['plants:read', 'plants:write'] };
// Under exactOptionalPropertyTypes, a tag that may be undefined is accepted (and means no tag).
const noTag: string | undefined = undefined as string | undefined;
const fern: NewPlant = { id: 2, name: 'Fern', tag: noTag };
await plants.createPlant(caller, fern);

const names: string[] = [];
for await (const plant of client.allPlants({ limit: 1 })) names.push(plant.name);
await client.deletePlant(9007199254740993n);
// Under exactOptionalPropertyTypes, a query whose parts may be undefined is accepted.
const after: bigint | undefined = undefined;
const left = (await plants.listPlants(caller, { limit: 10, after })).plants;
server.close();

// The custom store of docs/embedding.md in the service: the quota from the configuration, its
// outage answered 503, its events recorded with their plants. The host's own LOG_LEVEL is left alone.
const config = loadConfig(
  {
    LOG_LEVEL: 'verbose',
    PLANT_STORE_MAX_PLANTS_PER_TENANT: '2',
    PLANT_STORE_TOKENS: JSON.stringify([
      { token, tenant: 'acme', scopes: ['plants:read', 'plants:write'] },
    ]),
  },
  { embedded: true },
);
const custom = new ExamplePlantStore(config.storage.maxPlantsPerTenant);
const service = await buildService(config, (container: Container) => {
  container.rebind(TYPES.PlantStore).toConstantValue(custom);
  container.rebind(TYPES.Logger).toConstantValue(silent);
});
const served = createServer(service.app.callback()).listen(0, '127.0.0.1');
await once(served, 'listening');
const base = `http://127.0.0.1:${(served.address() as { port: number }).port}`;
const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
const post = (id: number) =>
  fetch(`${base}/plants`, { method: 'POST', headers, body: `{"id":${id},"name":"p${id}"}` });
const answer = async (sent: Promise<Response>) => {
  const response = await sent;
  const body = (await response.json()) as { error?: number };
  return [response.status, body.error ?? null];
};
const stored = [await answer(post(1)), await answer(post(2))];
const quota = await answer(post(3));
custom.reachable = false;
const down = await answer(fetch(`${base}/plants`, { headers }));
const ready = (await fetch(`${base}/readyz`)).status;
served.close();
await service.close();

console.log(
  JSON.stringify({
    created,
    duplicate,
    names,
    left,
    custom: { stored, quota, down, ready, events: custom.events.length },
  }),
);

// Never called: the compiler must refuse what the types forbid (an unused expectation fails too).
export function refusedAtCompileTime(): void {
  // @ts-expect-error an id is a bigint or a number, never a string
  void client.createPlant({ id: '1', name: 'x' });
  // @ts-expect-error `nme` is not a field of NewPlant
  void plants.createPlant(caller, { id: 1n, nme: 'x' });
}

// Never called: the container seam as docs/embedding.md shows it type-checks for a strict consumer.
export async function embeddedThroughTheContainer(): Promise<void> {
  const container = buildContainer(loadConfig(process.env));
  container.rebind(TYPES.PlantStore).toConstantValue(new MemoryPlantStore());
  container.rebind(TYPES.Logger).toConstantValue(silent);
  container.rebind(TYPES.MetricsOptions).toConstantValue({ prefix: 'host_' });
  const service = await resolveService(container);
  await service.opened;
  const text: string | undefined = await service.metrics?.registry.metrics();
  void text;
}

// Never called: every type a port's signature names comes from the root and from plant-store/core.
export type PortTypesFromTheRoot = [
  Root.PlantEvent,
  Root.StoredPlant,
  Root.PlantEvents,
  Root.WebhookSubscriptions,
  Root.WebhookSubscription,
  Root.SubscriptionPatch,
  Root.WebhookOutbox,
  Root.PendingDelivery,
  Root.TokenStore,
  Root.ManagedToken,
  Root.TokenSummary,
  Root.TokenVerifier,
  Root.Caller,
  Root.Logger,
  Root.Storage,
];
export type PortTypesFromTheCore = [
  Core.PlantEvent,
  Core.WebhookSubscriptions,
  Core.WebhookOutbox,
  Core.PendingDelivery,
  Core.WebhookEventType,
  Core.DeliveryHealth,
];
