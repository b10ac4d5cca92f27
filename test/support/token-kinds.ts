import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { CompositeTokenVerifier } from '../../src/adapters/auth/composite-token-verifier.js';
import { JwtTokenVerifier } from '../../src/adapters/auth/jwt-token-verifier.js';
import { ManagedTokenVerifier } from '../../src/adapters/auth/managed-token-verifier.js';
import { issueToken } from '../../src/adapters/auth/managed-tokens.js';
import { StaticTokenVerifier } from '../../src/adapters/auth/static-token-verifier.js';
import type { Config, JwtConfig, StaticToken } from '../../src/adapters/config.js';
import { buildContainer, TOKENS, type Wiring } from '../../src/adapters/container.js';
import { MemoryTokenStore } from '../../src/adapters/storage/memory/memory-token-store.js';
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
 * A running service (real Koa app, memory plants) that accepts all three kinds of token, and can
 * mint a token of any kind for any tenant and scopes. Static tokens are added while it runs.
 */
export class TokenKindsApi {
  private constructor(
    private readonly statics: { list: StaticToken[]; verifier: StaticTokenVerifier },
    private readonly server: Server,
    private readonly wiring: Wiring,
    private readonly validator: OpenApiValidator,
    private readonly tokenStore: MemoryTokenStore,
    private readonly provider: IdentityProvider,
  ) {}

  static async start(provider: IdentityProvider): Promise<TokenKindsApi> {
    const jwt = jwtConfigFor(provider);
    const config: Config = {
      port: 0,
      host: '127.0.0.1',
      storage: { kind: 'memory' },
      tokens: [],
      logLevel: 'silent',
      rateLimit: 0,
      jwt,
    };
    const tokenStore = new MemoryTokenStore();
    const statics = { list: [] as StaticToken[], verifier: new StaticTokenVerifier([]) };
    // The real verifiers, composed as the container composes them, with a static part that grows.
    const tokens = new CompositeTokenVerifier({
      static: { verify: (token) => statics.verifier.verify(token) },
      managed: new ManagedTokenVerifier(tokenStore),
      jwt: new JwtTokenVerifier(jwt),
    });
    const wiring = await buildContainer(config, { tokens, tokenStore });
    const server = createServer((await wiring.container.getAsync(TOKENS.HttpApp)).callback());
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    const document = JSON.parse((await send(port, 'GET', '/openapi.json')).text);
    return new TokenKindsApi(
      statics,
      server,
      wiring,
      new OpenApiValidator(document),
      tokenStore,
      provider,
    );
  }

  /** A new token of `kind` for the tenant with exactly these scopes. */
  async token(kind: TokenKind, tenant: string, scopes: Scope[]): Promise<string> {
    switch (kind) {
      case 'static': {
        const token = `static_${randomBytes(18).toString('base64url')}`;
        this.statics.list.push({ token, tenant, scopes });
        this.statics.verifier = new StaticTokenVerifier(this.statics.list);
        return token;
      }
      case 'managed':
        return (await issueToken(this.tokenStore, { tenant, scopes })).token;
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
    this.validator.check(method, path, response);
    return response;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
    await this.wiring.dispose();
  }
}
