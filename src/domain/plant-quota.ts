import { PlantError } from './errors.js';

/** Plants one tenant may hold unless configured otherwise (PLANT_STORE_MAX_PLANTS_PER_TENANT). */
export const DEFAULT_MAX_PLANTS_PER_TENANT = 1_000_000;

/** What a store throws when a create would take the tenant beyond `max` plants. */
export const plantQuotaReached = (max: number): PlantError =>
  new PlantError(
    'plant-quota-reached',
    `the tenant holds its quota of ${max} plants; delete some before creating more`,
  );
