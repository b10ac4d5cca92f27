import { randomBytes } from 'node:crypto';
import { createServer, type RequestListener, type Server } from 'node:http';
import { once } from 'node:events';
import { loadConfig, type JwtConfig, type StaticToken } from '../../src/config/index.js';
import { MemoryPlantStore } from '../../src/adapters/storage/memory/memory-plant-store.js';
import { MemoryTokenStore } from '../../src/adapters/storage/memory/memory-token-store.js';
import { TYPES } from '../../src/composition/identifiers.js';
import { buildService, type Service } from '../../src/composition/container.js';
import type { Scope } from '../../src/domain/caller.js';
import { send, type HttpResponse, type RequestOptions } from './http-client.js';
import type { IdentityProvider } from './identity-provider.js';
import { OpenApiValidator } from './openapi-validator.js';

export const TOKEN_KINDS = ['static', 'managed', 'jwt'] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];

export const jwtConfigFor = (provider: IdentityProvider): JwtConfig => ({
  issuer: provider.issuer,
  audience: [provider.audience],
  keys: { kind: 'jwks', url: provider.jwksUrl },
  algorithms: ['RS256', 'ES256'],
  tenantClaim: 'tenant',
  clockToleranceSeconds: 30,
});

/**
 * A running service (built by the real composition, memory stores) that accepts all three kinds
 * of token, and can mint a token of any kind for any tenant and scopes. Static tokens are
 * configuration: adding one builds the service anew on the same stores, as a restart with a new
 * PLANT_STORE_TOKENS would; managed tokens are issued through the service's own administration.
 */
export class TokenKindsApi {
  private readonly statics: StaticToken[] = [];
  private readonly server: Server;
  private validator: OpenApiValidator | undefined;
  private handle: RequestListener;

  private constructor(
    private service: Service,
    private readonly rebuild: (statics: StaticToken[]) => Promise<Service>,
    private readonly provider: IdentityProvider,
  ) {
    this.handle = service.app.callback();
    this.server = createServer((req, res) => this.handle(req, res));
  }

  static async start(provider: IdentityProvider): Promise<TokenKindsApi> {
    // No per-address failure budget: these tests send many refused tokens from one address on
    // purpose (test/contract/http/auth-failures.test.ts covers the budget).
    const config = {
      ...loadConfig({ LOG_LEVEL: 'silent' }),
      jwt: jwtConfigFor(provider),
      authFailureLimit: 0,
    };
    const plants = new MemoryPlantStore();
    const tokenStore = new MemoryTokenStore();
    const rebuild = (tokens: StaticToken[]) =>
      buildService({ ...config, staticTokens: tokens }, (container) => {
        container.rebind(TYPES.PlantStore).toConstantValue(plants);
        container.rebind(TYPES.TokenStore).toConstantValue(tokenStore);
      });
    const api = new TokenKindsApi(await rebuild([]), rebuild, provider);
    api.server.listen(0, '127.0.0.1');
    await once(api.server, 'listening');
    const document = JSON.parse((await send(api.port, 'GET', '/openapi.json')).text);
    api.validator = new OpenApiValidator(document);
    return api;
  }

  /** A new token of `kind` for the tenant with exactly these scopes. */
  async token(kind: TokenKind, tenant: string, scopes: Scope[]): Promise<string> {
    switch (kind) {
      case 'static': {
        const token = `static_${randomBytes(18).toString('base64url')}`;
        this.statics.push({ token, tenant, scopes });
        const previous = this.service;
        this.service = await this.rebuild([...this.statics]);
        this.handle = this.service.app.callback();
        await previous.close();
        return token;
      }
      case 'managed':
        return (await this.service.tokenAdministration.issue({ tenant, scopes })).token;
      case 'jwt':
        // Both claim forms: `scp` as an array for single scopes, `scope` as a string otherwise.
        return this.provider.sign(
          scopes.length === 1 ? { tenant, scp: scopes } : { tenant, scope: scopes.join(' ') },
        );
    }
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  /** Sends a request with the token (JSON body when `json` is given), checked against the OpenAPI document. */
  async request(
    method: string,
    path: string,
    token: string,
    options: RequestOptions & { json?: string } = {},
  ): Promise<HttpResponse> {
    const headers: [string, string][] = [['Authorization', `Bearer ${token}`]];
    if (options.json !== undefined) headers.push(['Content-Type', 'application/json']);
    headers.push(...(options.headers ?? []));
    const body = options.json ?? options.body;
    const response = await send(this.port, method, path, {
      headers,
      ...(body !== undefined && { body }),
    });
    this.validator!.check(method, path, response);
    return response;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
    await this.service.close();
  }
}
