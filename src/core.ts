// `plant-store/core`: the domain, its ports and the memory store, for embedding without HTTP. It
// imports no framework, driver, container or `reflect-metadata`, so importing it costs a few ms.
export { SCOPES, isScope, requireScope, type Caller, type Scope } from './domain/caller.js';
export { PlantError, isPlantError, type PlantErrorCode } from './domain/errors.js';
export {
  MAX_PLANT_ID,
  MIN_PLANT_ID,
  isPlantId,
  parsePlantId,
  type PlantId,
} from './domain/plant-id.js';
export {
  checkTagFilter,
  firstById,
  MAX_FILTER_TAGS,
  parseNewPlant,
  samePlant,
  toPlant,
  type NewPlant,
  type Plant,
  type StoredPlant,
} from './domain/plant.js';
export { compareTenants } from './domain/tenant.js';
export { DEFAULT_LIMIT, MAX_LIMIT, PlantService } from './application/plant-service.js';
export {
  EXPORT_FORMAT,
  EXPORT_VERSION,
  exportPlants,
  type ExportOptions,
} from './application/plant-export.js';
export {
  ImportRefused,
  importPlants,
  MAX_LINE_BYTES,
  type ConflictPolicy,
  type ImportOptions,
  type ImportProblem,
  type ImportSummary,
} from './application/plant-import.js';
export {
  TokenRequestError,
  type ManagedToken,
  type TokenRequest,
  type TokenSummary,
} from './domain/managed-token.js';
export { DEFAULT_MAX_PLANTS_PER_TENANT, plantQuotaReached } from './domain/plant-quota.js';
export type {
  DeliveryHealth,
  PlantEvent,
  SubscriptionPatch,
  WebhookEventType,
  WebhookSubscription,
} from './domain/webhook.js';
// Every type a port's signature names is exported here, so that an embedder implements any port
// from this entry (or the root) alone.
export type { Logger } from './ports/logger.js';
export type { PlantEvents } from './ports/plant-events.js';
export type { ImportOutcome, PlantReader, PlantSnapshot, PlantStore } from './ports/plant-store.js';
export type { PlantPage, PlantQuery, PlantUseCases } from './ports/plant-use-cases.js';
export type { Storage } from './ports/storage.js';
export type { IssuedToken, Revocation, TokenAdministration } from './ports/token-administration.js';
export type { TokenStore } from './ports/token-store.js';
export type { TokenVerifier } from './ports/token-verifier.js';
export type {
  ReceiverUrlCheck,
  SubscriptionRequest,
  WebhookAdministration,
} from './ports/webhook-administration.js';
export type { PendingDelivery, WebhookOutbox } from './ports/webhook-outbox.js';
export type { WebhookSubscriptions } from './ports/webhook-subscriptions.js';
export { MemoryPlantStore } from './adapters/storage/memory/memory-plant-store.js';
