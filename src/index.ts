// The library surface: the core for embedding without HTTP, its ports, and the adapters to wire it.
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
  parseNewPlant,
  toPlant,
  type NewPlant,
  type Plant,
  type StoredPlant,
} from './domain/plant.js';
export { DEFAULT_LIMIT, MAX_LIMIT, PlantService } from './domain/plant-service.js';
export type { Logger } from './ports/logger.js';
export type { PlantStore } from './ports/plant-store.js';
export type { PlantPage, PlantUseCases } from './ports/plant-use-cases.js';
export type { TokenStore } from './ports/token-store.js';
export type { TokenVerifier } from './ports/token-verifier.js';
export type { ManagedToken, TokenRequest, TokenSummary } from './domain/managed-token.js';
export { StaticTokenVerifier } from './adapters/auth/static-token-verifier.js';
export { CompositeTokenVerifier } from './adapters/auth/composite-token-verifier.js';
export { JwtTokenVerifier } from './adapters/auth/jwt-token-verifier.js';
export { ManagedTokenVerifier } from './adapters/auth/managed-token-verifier.js';
export {
  issueToken,
  MANAGED_TOKEN_PATTERN,
  TokenRequestError,
  type IssuedToken,
} from './adapters/auth/managed-tokens.js';
export {
  ConfigError,
  loadConfig,
  type Config,
  type JwtConfig,
  type StaticToken,
  type StorageConfig,
} from './adapters/config.js';
export { buildContainer, TOKENS, type Overrides, type Wiring } from './adapters/container.js';
export { createHttpApp, type HttpApp, type HttpAppOptions } from './adapters/http/app.js';
export { answerClientError } from './adapters/http/client-error.js';
export { openApiDocument } from './adapters/http/openapi.js';
export { createLogger } from './adapters/logger.js';
export { MemoryPlantStore } from './adapters/storage/memory/memory-plant-store.js';
export { createPlantStore } from './adapters/storage/create-plant-store.js';
export { MemoryTokenStore } from './adapters/storage/memory/memory-token-store.js';
export { FileTokenStore } from './adapters/storage/file/file-token-store.js';
export { createTokenStore } from './adapters/storage/create-token-store.js';
