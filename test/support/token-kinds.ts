import { randomBytes } from 'node:crypto';
import type { JwtConfig, StaticToken } from '../../src/config/index.js';
import { MemoryPlantStore } from '../../src/adapters/storage/memory/memory-plant-store.js';
import { MemoryTokenStore } from '../../src/adapters/storage/memory/memory-token-store.js';
import { TYPES } from '../../src/composition/identifiers.js';
import type { Scope } from '../../src/domain/caller.js';
import type { HttpResponse, RequestOptions } from './http-client.js';
import { Api } from './http-harness.js';
import type { IdentityProvider } from './identity-provider.js';

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
 * The in-process service (test/support/http-harness.ts, memory stores) accepting all three kinds
 * of token, which can mint a token of any kind for any tenant and scopes. Static tokens are
 * configuration: adding one builds the service anew on the same stores, as a restart with a new
 * PLANT_STORE_TOKENS would; managed tokens are issued through the service's own administration.
 */
export class TokenKindsApi {
  private readonly statics: StaticToken[] = [];

  private constructor(
    private readonly api: Api,
    private readonly provider: IdentityProvider,
  ) {}

  static async start(provider: IdentityProvider): Promise<TokenKindsApi> {
    const plants = new MemoryPlantStore();
    const tokenStore = new MemoryTokenStore();
    // No per-address failure budget (the harness's default): these tests send many refused
    // tokens from one address on purpose (test/contract/http/auth-failures.test.ts covers it).
    const api = await Api.start(
      { kind: 'memory' },
      { jwt: jwtConfigFor(provider), staticTokens: [] },
      {
        roles: false,
        configure: (container) => {
          container.rebind(TYPES.PlantStore).toConstantValue(plants);
          container.rebind(TYPES.TokenStore).toConstantValue(tokenStore);
        },
      },
    );
    return new TokenKindsApi(api, provider);
  }

  /** A new token of `kind` for the tenant with exactly these scopes. */
  async token(kind: TokenKind, tenant: string, scopes: Scope[]): Promise<string> {
    switch (kind) {
      case 'static': {
        const token = `static_${randomBytes(18).toString('base64url')}`;
        this.statics.push({ token, tenant, scopes });
        await this.api.restartWith({ staticTokens: [...this.statics] });
        return token;
      }
      case 'managed':
        return (await this.api.service.tokenAdministration.issue({ tenant, scopes })).token;
      case 'jwt':
        // Both claim forms: `scp` as an array for single scopes, `scope` as a string otherwise.
        return this.provider.sign(
          scopes.length === 1 ? { tenant, scp: scopes } : { tenant, scope: scopes.join(' ') },
        );
    }
  }

  get port(): number {
    return this.api.port;
  }

  /** Sends a request with the token (JSON body when `json` is given), checked against the OpenAPI document. */
  request(
    method: string,
    path: string,
    token: string,
    options: RequestOptions & { json?: string } = {},
  ): Promise<HttpResponse> {
    return this.api.request(method, path, {
      ...options,
      as: null,
      headers: [['Authorization', `Bearer ${token}`], ...(options.headers ?? [])],
    });
  }

  close(): Promise<void> {
    return this.api.close();
  }
}
