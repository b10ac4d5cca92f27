// `plant-store/client`: a typed HTTP client of the plant store, with exact int64 ids. It runs
// wherever `fetch` does (Node 20+, browsers) and imports nothing from Node or the server.
export { PlantStoreClient } from './plant-store-client.js';
export type {
  CallOptions,
  ListOptions,
  NewPlant,
  Plant,
  PlantPage,
  PlantStoreClientOptions,
  RetryEvent,
} from './types.js';
export {
  ERROR_CODES,
  PlantStoreError,
  PlantStoreHttpError,
  PlantStoreNetworkError,
  PlantStoreResponseError,
  PlantStoreTimeoutError,
  type Attempts,
} from './errors.js';
export { toPlantId, type PlantIdInput } from './plant-id.js';
export type { RetryOptions } from './retry-policy.js';
