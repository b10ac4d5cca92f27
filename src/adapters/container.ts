import 'reflect-metadata';
import { Container, type ServiceIdentifier } from 'inversify';
import { PlantService } from '../domain/plant-service.js';
import type { Logger } from '../ports/logger.js';
import type { PlantStore } from '../ports/plant-store.js';
import type { PlantUseCases } from '../ports/plant-use-cases.js';
import type { TokenStore } from '../ports/token-store.js';
import type { TokenVerifier } from '../ports/token-verifier.js';
import { CompositeTokenVerifier } from './auth/composite-token-verifier.js';
import { JwtTokenVerifier } from './auth/jwt-token-verifier.js';
import { ManagedTokenVerifier } from './auth/managed-token-verifier.js';
import { StaticTokenVerifier } from './auth/static-token-verifier.js';
import type { Config } from './config.js';
import { createHttpApp, type HttpApp } from './http/app.js';
import { createLogger } from './logger.js';
import { createPlantStore } from './storage/create-plant-store.js';
import { createTokenStore } from './storage/create-token-store.js';

/** Typed identifiers of everything the container provides. */
export const TOKENS = {
  Config: Symbol('Config') as ServiceIdentifier<Config>,
  Logger: Symbol('Logger') as ServiceIdentifier<Logger>,
  PlantStore: Symbol('PlantStore') as ServiceIdentifier<PlantStore>,
  /** Managed tokens, kept by the configured storage (a file with memory). */
  TokenStore: Symbol('TokenStore') as ServiceIdentifier<TokenStore>,
  TokenVerifier: Symbol('TokenVerifier') as ServiceIdentifier<TokenVerifier>,
  PlantUseCases: Symbol('PlantUseCases') as ServiceIdentifier<PlantUseCases>,
  HttpApp: Symbol('HttpApp') as ServiceIdentifier<HttpApp>,
};

export interface Wiring {
  container: Container;
  /** Closes the store's connections; the container is unusable afterwards. */
  dispose(): Promise<void>;
}

/** Replacements for the defaults, e.g. a host service's logger, token verifier or stores. */
export type Overrides = Partial<{
  logger: Logger;
  /** Replaces the whole verifier (static, managed and JWT tokens). */
  tokens: TokenVerifier;
  store: PlantStore;
  tokenStore: TokenStore;
}>;

/** The composition root: binds every port to its adapter, opens the store, and hands back a disposer. */
export async function buildContainer(config: Config, overrides: Overrides = {}): Promise<Wiring> {
  const container = new Container({ defaultScope: 'Singleton' });
  container.bind(TOKENS.Config).toConstantValue(config);
  container.bind(TOKENS.Logger).toConstantValue(overrides.logger ?? createLogger(config.logLevel));
  container
    .bind(TOKENS.PlantStore)
    .toResolvedValue(
      (logger: Logger) => overrides.store ?? createPlantStore(config.storage, { logger }),
      [TOKENS.Logger],
    );
  container
    .bind(TOKENS.TokenStore)
    .toResolvedValue(() => overrides.tokenStore ?? createTokenStore(config));
  container.bind(TOKENS.TokenVerifier).toResolvedValue(
    (tokenStore: TokenStore, logger: Logger) =>
      overrides.tokens ??
      new CompositeTokenVerifier({
        static: new StaticTokenVerifier(config.tokens),
        managed: new ManagedTokenVerifier(tokenStore, {
          logger,
          ttlMs: (config.tokenCacheSeconds ?? 5) * 1000,
        }),
        jwt: config.jwt && new JwtTokenVerifier(config.jwt, { logger }),
      }),
    [TOKENS.TokenStore, TOKENS.Logger],
  );
  container
    .bind(TOKENS.PlantUseCases)
    .toResolvedValue((store: PlantStore) => new PlantService(store), [TOKENS.PlantStore]);
  container
    .bind(TOKENS.HttpApp)
    .toResolvedValue(
      (plants: PlantUseCases, tokens: TokenVerifier, store: PlantStore, logger: Logger) =>
        createHttpApp({ plants, tokens, store, logger, rateLimit: config.rateLimit }),
      [TOKENS.PlantUseCases, TOKENS.TokenVerifier, TOKENS.PlantStore, TOKENS.Logger],
    );

  // Opening the store here makes a bad URL fail start-up, not the first request.
  const store = await container.getAsync(TOKENS.PlantStore);
  let tokenStore: TokenStore;
  try {
    tokenStore = await container.getAsync(TOKENS.TokenStore);
  } catch (error) {
    await store.close();
    throw error;
  }
  return {
    container,
    async dispose() {
      await store.close();
      await tokenStore.close();
      await container.unbindAllAsync();
    },
  };
}
