// The worked example of docs/embedding.md ("Your own PlantStore"): a PlantStore of an embedder's
// own, compiled against the packed package and run by package-consumer.test.ts. Its "database" is
// a Map behind an async call that may fail as a lost connection does.
import {
  DEFAULT_MAX_PLANTS_PER_TENANT,
  PlantError,
  compareTenants,
  plantQuotaReached,
  samePlant,
  type ImportOutcome,
  type PlantEvent,
  type PlantId,
  type PlantStore,
  type StoredPlant,
} from 'plant-store/core';

/** No store call keeps a request longer than this (docs/storage.md): the bound is the store's job. */
const BOUND_MS = 2000;

const unavailable = () =>
  new PlantError('storage-unavailable', 'the plant database is unavailable');

/** The driver's errors that mean "cannot be reached now"; any other error propagates (a 500). */
const isOutage = (error: unknown): boolean =>
  error instanceof Error && /ECONNREFUSED|ECONNRESET|ETIMEDOUT/.test(error.message);

/**
 * Settles as `work` does, but rejects with storage-unavailable after BOUND_MS or on an outage. The
 * service logs the outage's first failure and first recovery and counts them; the store only
 * throws the right PlantError.
 */
function bounded<T>(work: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(unavailable()), BOUND_MS);
    work().then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(isOutage(error) ? unavailable() : error);
      },
    );
  });
}

export class ExamplePlantStore implements PlantStore {
  private readonly byTenant = new Map<string, Map<PlantId, StoredPlant>>();
  /** Events recorded with their plant; webhook delivery of them is the embedder's (or none). */
  readonly events: { tenant: string; event: PlantEvent }[] = [];
  /** Whether the example's database answers: false stands for a lost connection. */
  reachable = true;

  /** `maxPlantsPerTenant`: the service's `config.storage.maxPlantsPerTenant`; 0 for no quota. */
  constructor(private readonly maxPlantsPerTenant = DEFAULT_MAX_PLANTS_PER_TENANT) {}

  insert(tenant: string, plant: StoredPlant, event?: PlantEvent): Promise<boolean> {
    return bounded(async () => {
      const plants = await this.table(tenant);
      // A taken id resolves false before the quota is looked at, as every store does.
      if (plants.has(plant.id)) return false;
      if (this.maxPlantsPerTenant > 0 && plants.size >= this.maxPlantsPerTenant) {
        throw plantQuotaReached(this.maxPlantsPerTenant);
      }
      // The plant and its event in one write (here one synchronous step): both or neither.
      plants.set(plant.id, { ...plant });
      if (event !== undefined) this.events.push({ tenant, event });
      return true;
    });
  }

  get(tenant: string, id: PlantId): Promise<StoredPlant | undefined> {
    return bounded(async () => (await this.table(tenant)).get(id));
  }

  list(
    tenant: string,
    after: PlantId | undefined,
    limit: number,
    tags?: readonly string[],
  ): Promise<StoredPlant[]> {
    return bounded(async () =>
      [...(await this.table(tenant)).values()]
        .filter((plant) => after === undefined || plant.id > after)
        .filter((plant) => tags === undefined || tags.includes(plant.tag as string))
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .slice(0, limit),
    );
  }

  delete(tenant: string, id: PlantId): Promise<boolean> {
    return bounded(async () => (await this.table(tenant)).delete(id));
  }

  /** What an export pages through: the tenants holding plants, in code-point order. */
  tenants(after: string | undefined, limit: number): Promise<string[]> {
    return bounded(async () => {
      return [...(await this.database()).entries()]
        .filter(
          ([tenant, plants]) =>
            plants.size > 0 && (after === undefined || compareTenants(tenant, after) > 0),
        )
        .map(([tenant]) => tenant)
        .sort(compareTenants)
        .slice(0, limit);
    });
  }

  /** An import's batch in one write (here one synchronous step), within the quota, recording no event. */
  importBatch(
    tenant: string,
    plants: readonly StoredPlant[],
    overwrite: boolean,
  ): Promise<ImportOutcome[]> {
    return bounded(async () => {
      const held = await this.table(tenant);
      return plants.map((plant): ImportOutcome => {
        const current = held.get(plant.id);
        if (current !== undefined && samePlant(current, plant)) return 'present';
        if (current !== undefined && !overwrite) return 'conflict';
        if (
          current === undefined &&
          this.maxPlantsPerTenant > 0 &&
          held.size >= this.maxPlantsPerTenant
        )
          return 'quota';
        held.set(plant.id, { ...plant });
        return current === undefined ? 'stored' : 'replaced';
      });
    });
  }

  /** /readyz asks this: storage-unavailable when it cannot serve (storage-refuses-writes when it takes no writes). */
  ping(): Promise<void> {
    return bounded(async () => void (await this.table('')));
  }

  /** The example's round trip to its database. */
  private async database(): Promise<Map<string, Map<PlantId, StoredPlant>>> {
    if (!this.reachable) throw new Error('connect ECONNREFUSED 10.0.0.5:5432');
    return this.byTenant;
  }

  /** One tenant's table of the database. */
  private async table(tenant: string): Promise<Map<PlantId, StoredPlant>> {
    const database = await this.database();
    let plants = database.get(tenant);
    if (plants === undefined) database.set(tenant, (plants = new Map()));
    return plants;
  }
}
